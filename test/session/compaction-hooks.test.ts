import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { buildClaudeArgs, buildHookEnv } from "../../action/src/session/claude-args.ts";
import { buildHookSettings } from "../../action/src/session/hook-settings.ts";
import { startFakeModelServer } from "../support/fake-model-server.ts";
import { HOOKS_DIR } from "../support/fake-model-sandbox.ts";
import { runClaude, runScripted } from "../support/fake-model-run.ts";

describe("compaction inside a real Claude Code session", { timeout: 110_000 }, () => {
  it("PreCompact writes handoff notes and blocks once; after compaction SessionStart re-anchors the stage", async () => {
    const first = await runScripted(
      (b) => [
        {
          blocks: [
            { type: "tool_use", name: "Write", input: { file_path: join(b.repo, "x.txt"), content: "x\n" } },
          ],
        },
        { blocks: [{ type: "text", text: "ok" }] },
      ],
      { stopMaxBlocks: 0 },
    );
    const { box, outcome } = first;
    const server = await startFakeModelServer({
      turns: [{ blocks: [{ type: "text", text: "Back on it." }] }],
    });
    try {
      assert.equal(outcome.status, "completed", outcome.reason);
      const env = {
        ...box.claudeEnv(server.url),
        ...buildHookEnv({
          heartbeatFile: join(box.stateDir, "heartbeat.json"),
          handoffNotesFile: join(box.stateDir, "handoff-notes.md"),
          hookStateDir: join(box.stateDir, "hook-state"),
          stageId: "stage-a",
          attempt: 1,
          stopMaxBlocks: 0,
        }),
      };
      const settings = buildHookSettings({ dir: HOOKS_DIR, extension: "ts", nodePath: process.execPath });
      const args = (prompt: string): string[] => [
        ...buildClaudeArgs({ allowedTools: ["Read"], settings }),
        "--resume",
        outcome.sessionId,
        prompt,
      ];

      const blocked = await runClaude(args("/compact"), box.repo, env);
      const blockedResult = blocked.find((l) => l.type === "result");
      assert.match(
        String(blockedResult?.result),
        /Compaction blocked by PreCompact hook.*loom: the context is nearly full/s,
      );
      const notes = readFileSync(join(box.stateDir, "handoff-notes.md"), "utf8");
      assert.match(notes, /Compaction \(manual\)/);
      assert.match(notes, /repo\/x\.txt/);

      const compacted = await runClaude(args("/compact"), box.repo, env);
      assert.ok(
        compacted.some((l) => l.subtype === "compact_boundary"),
        "the second /compact went through",
      );
      const reanchor = compacted.find(
        (l) => l.subtype === "hook_response" && l.hook_name === "SessionStart:compact",
      );
      assert.match(String(reanchor?.output), /stage `stage-a`[\s\S]*Notes written just before compaction/);
      assert.equal(server.requests.filter((r) => r.kind === "compact").length, 1);

      await runClaude(args("Carry on."), box.repo, env);
      const next = server.mainRequests().at(-1);
      assert.match(JSON.stringify(next?.body?.messages), /Scripted summary\./);
      assert.match(JSON.stringify(next?.body?.messages), /you are working on stage `stage-a`/);
    } finally {
      await server.close();
      box.cleanup();
    }
  });
});
