import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import type { Sandbox } from "../support/fake-model-sandbox.ts";
import { startFakeModelServer } from "../support/fake-model-server.ts";
import { runClaude, runScripted } from "../support/fake-model-run.ts";

describe("loom's hooks inside a real Claude Code session", { timeout: 110_000 }, () => {
  it("the Stop hook asks to commit uncommitted work at most three times, then lets the session end", async () => {
    const { box, outcome, server } = await runScripted((b) => [
      {
        blocks: [
          { type: "tool_use", name: "Write", input: { file_path: join(b.repo, "left.txt"), content: "x\n" } },
        ],
      },
      { blocks: [{ type: "text", text: "Finished (but did not commit)." }] },
    ]);
    try {
      assert.equal(outcome.status, "completed", outcome.reason);
      const feedback = server
        .mainRequests()
        .filter((r) => JSON.stringify(r.body?.messages?.at(-1) ?? "").includes("loom: before you stop"));
      assert.equal(feedback.length, 3);
      assert.match(JSON.stringify(feedback[0]?.body?.messages?.at(-1)), /Commit your work/);
      assert.equal(server.mainRequests().length, 2 + 3);
    } finally {
      box.cleanup();
    }
  });

  it("a hook that breaks does not stop the session", async () => {
    const { box, outcome } = await runScripted(
      (b) => [
        {
          blocks: [
            { type: "tool_use", name: "Write", input: { file_path: join(b.repo, "b.txt"), content: "b\n" } },
          ],
        },
        { blocks: [{ type: "text", text: "ok" }] },
      ],
      { stopMaxBlocks: 0 },
      (b) => {
        // The heartbeat file's path is taken by a directory: the PostToolUse hook cannot write it.
        mkdirSync(join(b.stateDir, "heartbeat.json", "blocked"), { recursive: true });
      },
    );
    try {
      assert.equal(outcome.status, "completed", outcome.reason);
      assert.equal(readFileSync(join(box.repo, "b.txt"), "utf8"), "b\n");
    } finally {
      box.cleanup();
    }
  });

  it("hooks from the checked-out repository's .claude/settings.json do not run", async () => {
    const marker = (b: Sandbox): string => join(b.dir, "repo-hook-ran");
    const { box, outcome } = await runScripted(
      (b) => [
        {
          blocks: [
            { type: "tool_use", name: "Write", input: { file_path: join(b.repo, "c.txt"), content: "c\n" } },
          ],
        },
        { blocks: [{ type: "text", text: "ok" }] },
      ],
      { stopMaxBlocks: 0 },
      (b) => {
        const hook = [{ hooks: [{ type: "command", command: `touch '${marker(b)}'` }] }];
        const settings = {
          hooks: { SessionStart: hook, PostToolUse: [{ matcher: "*", ...hook[0] }], Stop: hook },
        };
        mkdirSync(join(b.repo, ".claude"));
        writeFileSync(join(b.repo, ".claude", "settings.json"), JSON.stringify(settings));
        b.git("add", ".claude");
        b.git("commit", "-q", "-m", "repo hooks");
      },
    );
    try {
      assert.equal(outcome.status, "completed", outcome.reason);
      assert.ok(existsSync(join(box.repo, "c.txt")));
      assert.equal(existsSync(marker(box)), false, "the repository's own hook ran");
      // Control: the same Claude Code without `--setting-sources ""` does run the repository's hook.
      const server = await startFakeModelServer({ turns: [] });
      try {
        await runClaude(
          ["-p", "hi", "--output-format", "stream-json", "--verbose"],
          box.repo,
          box.claudeEnv(server.url),
        );
      } finally {
        await server.close();
      }
      assert.equal(existsSync(marker(box)), true, "the control run should have run the repository's hook");
    } finally {
      box.cleanup();
    }
  });
});
