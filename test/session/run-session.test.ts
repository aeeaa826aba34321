import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { Handoff, renderHandoffMarkdown } from "../../src/artifacts/handoff.ts";
import { Heartbeat } from "../../src/artifacts/heartbeat.ts";
import { isProcessGroupAlive } from "../../action/src/session/kill-process-group.ts";
import { runScripted } from "../support/fake-model-run.ts";

describe("runSession with the real Claude Code binary", { timeout: 110_000 }, () => {
  it("a model that writes a file completes, and the heartbeat shows the last tool the hook saw", async () => {
    const { box, outcome, heartbeats } = await runScripted((b) => [
      {
        blocks: [
          { type: "text", text: "Writing." },
          {
            type: "tool_use",
            name: "Write",
            input: { file_path: join(b.repo, "hello.txt"), content: "hello\n" },
          },
        ],
      },
      {
        blocks: [
          {
            type: "tool_use",
            name: "Bash",
            input: { command: "curl -s http://127.0.0.1:9/", description: "refused" },
          },
        ],
      },
      {
        blocks: [
          { type: "tool_use", name: "Bash", input: { command: "git add hello.txt", description: "stage" } },
        ],
      },
      {
        blocks: [
          {
            type: "tool_use",
            name: "Bash",
            input: { command: "git commit -q -m 'Add hello'", description: "commit" },
          },
        ],
      },
      { blocks: [{ type: "text", text: "Done. [DEVIATION Rule 2: wrote hello.txt at the root]" }] },
    ]);
    try {
      assert.equal(outcome.status, "completed", outcome.reason);
      assert.equal(readFileSync(join(box.repo, "hello.txt"), "utf8"), "hello\n");
      const hookFile = Heartbeat.parse(
        JSON.parse(readFileSync(join(box.stateDir, "heartbeat.json"), "utf8")),
      );
      // Only the PostToolUse hook writes this file: proof it ran, after the last successful tool.
      assert.equal(hookFile.last_tool, "Bash");
      assert.equal(hookFile.activity, "Bash git commit -q -m 'Add hello'");
      assert.equal(outcome.lastHeartbeat?.last_tool, "Bash");
      assert.equal(hookFile.session_id, outcome.sessionId);
      assert.equal(box.git("log", "-1", "--format=%s").trim(), "Add hello");
      assert.deepEqual(outcome.deviations, ["[DEVIATION Rule 2: wrote hello.txt at the root]"]);
      assert.deepEqual(
        outcome.permissionDenials.map((d) => d.tool_name),
        ["Bash"],
      );
      assert.ok(heartbeats.length >= 2);
      assert.ok(outcome.turns >= 3);
      assert.ok(outcome.costUsd > 0);
      assert.equal(outcome.resultText, "Done. [DEVIATION Rule 2: wrote hello.txt at the root]");
      assert.ok(readFileSync(outcome.transcriptPath, "utf8").includes('"type":"result"'));
    } finally {
      box.cleanup();
    }
  });

  it("a model that stalls is stopped by the silence watchdog: hung, with its whole process group gone", async () => {
    const { box, outcome, server, heartbeats } = await runScripted(
      (b) => [
        {
          blocks: [
            { type: "tool_use", name: "Write", input: { file_path: join(b.repo, "a.txt"), content: "a\n" } },
          ],
        },
        { blocks: [{ type: "text", text: "never sent" }], stall: "forever" },
      ],
      { silenceTimeoutMs: 10_000, killGraceMs: 1000, stopMaxBlocks: 0, heartbeatIntervalMs: 1000 },
    );
    try {
      assert.equal(outcome.status, "hung", outcome.reason);
      // Heartbeats kept coming while the model was silent: the app sees a live but stuck session.
      assert.ok(heartbeats.filter((h) => h.last_tool === "Write").length >= 3, String(heartbeats.length));
      assert.equal(server.turnsUsed(), 2);
      assert.ok(typeof outcome.processGroupId === "number");
      assert.equal(isProcessGroupAlive(outcome.processGroupId), false);
      assert.equal(Handoff.parse(outcome.handoff).reason, "hung");
      assert.deepEqual(outcome.handoff.files_touched, ["a.txt"]);
    } finally {
      box.cleanup();
    }
  });

  it("crossing the context budget ends the session with a handoff document that validates", async () => {
    const { box, outcome, server } = await runScripted((b) => [
      {
        blocks: [
          { type: "tool_use", name: "Write", input: { file_path: join(b.repo, "notes.md"), content: "n\n" } },
        ],
      },
      {
        blocks: [
          { type: "text", text: "Reading a lot." },
          { type: "tool_use", name: "Read", input: { file_path: join(b.repo, "README.md") } },
        ],
        usage: { input_tokens: 20_000, cache_read_input_tokens: 660_000 },
      },
      { blocks: [{ type: "text", text: "should not be reached" }] },
    ]);
    try {
      assert.equal(outcome.status, "needs-handoff", outcome.reason);
      assert.equal(server.turnsUsed(), 2);
      assert.ok(outcome.contextPercent >= 65, String(outcome.contextPercent));
      const handoff = Handoff.parse(outcome.handoff);
      assert.equal(handoff.reason, "context-budget");
      assert.equal(handoff.stage_id, "stage-a");
      assert.equal(handoff.session_id, outcome.sessionId);
      assert.deepEqual(handoff.files_touched, ["notes.md"]);
      assert.match(handoff.summary, /Reading a lot\./);
      assert.match(renderHandoffMarkdown(handoff), /## Files touched\n\n- notes\.md/);
    } finally {
      box.cleanup();
    }
  });

  it("a Claude Code that cannot start is a crash with the reason, not a hang or a success", async () => {
    const { box, outcome } = await runScripted(() => [], {
      claudePath: "/nonexistent/claude",
      silenceTimeoutMs: 30_000,
    });
    try {
      assert.equal(outcome.status, "crashed");
      assert.match(outcome.reason, /without a result/);
    } finally {
      box.cleanup();
    }
  });
});
