import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { Heartbeat } from "../../src/artifacts/heartbeat.ts";
import { runSession, type RunSessionOptions } from "../../action/src/session/run-session.ts";
import { startFakeModelServer, type FakeTurn, type FakeModelServer } from "../support/fake-model-server.ts";
import { CLAUDE_PATH, createSandbox, HOOKS_DIR, type Sandbox } from "../support/fake-model-sandbox.ts";

type Run = {
  box: Sandbox;
  server: FakeModelServer;
  heartbeats: Heartbeat[];
  outcome: Awaited<ReturnType<typeof runSession>>;
};

async function runScripted(
  turns: (box: Sandbox) => FakeTurn[],
  extra: Partial<RunSessionOptions> = {},
  setup: (box: Sandbox) => void = () => undefined,
): Promise<Run> {
  const box = createSandbox();
  setup(box);
  const server = await startFakeModelServer({ turns: turns(box) });
  const heartbeats: Heartbeat[] = [];
  try {
    const outcome = await runSession({
      prompt: "Do the stage.",
      cwd: box.repo,
      claudePath: CLAUDE_PATH,
      env: box.claudeEnv(server.url),
      stageId: "stage-a",
      attempt: 1,
      stateDir: box.stateDir,
      transcriptPath: join(box.dir, "transcript.jsonl"),
      hooks: { dir: HOOKS_DIR, extension: "ts", nodePath: process.execPath },
      allowedTools: ["Read", "Write", "Edit", "Bash(git *)"],
      toolHeartbeatGapMs: 0,
      publishHeartbeat: (hb) => {
        heartbeats.push(Heartbeat.parse(hb));
      },
      ...extra,
    });
    return { box, server, heartbeats, outcome };
  } finally {
    await server.close();
  }
}

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
});
