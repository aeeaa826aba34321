import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { CheckContext } from "../../action/src/checks/check-context.ts";
import { runCommand } from "../../action/src/checks/run-command.ts";
import { runCommandCheck } from "../../action/src/checks/run-command-check.ts";
import { runDeadCodeCheck } from "../../action/src/checks/run-dead-code-check.ts";
import {
  createSessionSandbox,
  disposeSessionSandbox,
} from "../../action/src/isolation/create-session-sandbox.ts";
import type { SessionSandbox } from "../../action/src/isolation/session-isolation.ts";

/**
 * Checks run the repository's code: on a runner that can switch users they run as the session
 * user, never as the action's (root here), with the checkout lent to that user and taken back.
 */
let root = "";
let checkout = "";
let sandbox: SessionSandbox | undefined;

before(async () => {
  root = await mkdtemp(path.join(tmpdir(), "loom-check-isolation-"));
  checkout = path.join(root, "checkout");
  await mkdir(checkout);
  await writeFile(path.join(checkout, "README.md"), "# repo\n");
  // One session user name for every run of this file: a run stopped before `after` (a mutation
  // test bails out at the first failure) leaves that one user behind, not one per run.
  sandbox = await createSessionSandbox(path.join(root, "tmp"), "loom-check-isolation-test");
});
after(async () => {
  if (sandbox !== undefined) await disposeSessionSandbox(sandbox);
  await rm(root, { recursive: true, force: true });
});

function context(): CheckContext {
  assert.ok(sandbox !== undefined);
  return {
    workspace: checkout,
    env: { PATH: process.env.PATH },
    sandbox,
    knownSecrets: [],
    defaultTimeoutMs: 20_000,
    now: Date.now,
  };
}

const isolated = process.getuid?.() === 0;

describe(
  "checks with an isolating sandbox",
  { skip: isolated ? false : "needs root to create the session user" },
  () => {
    it("run as the session user, in the checkout it was lent, which comes back to the action after", async () => {
      const ctx = context();
      assert.equal(ctx.sandbox?.isolation.kind, "user");
      const user = ctx.sandbox?.isolation.kind === "user" ? ctx.sandbox.isolation.user : "";
      const result = await runCommandCheck(
        {
          kind: "acceptance",
          name: "who",
          command: 'id -un; id -gn; stat -c %U .; echo "$HOME"',
          cwd: checkout,
          criteria: {},
        },
        ctx,
      );
      assert.equal(result.passed, true, result.output_tail);
      assert.equal(result.output_tail, `--- stdout ---\n${user}\n${user}\n${user}\n${ctx.sandbox?.home}`);
      assert.equal((await stat(checkout)).uid, process.getuid?.());
    });

    it("kill what the session user left running once the command exits", async () => {
      const started = Date.now();
      const run = await runCommand({
        command: "sleep 30 & (trap '' TERM; sleep 30) & echo started",
        cwd: checkout,
        timeoutMs: 20_000,
        env: { PATH: process.env.PATH },
        runAs: { sandbox: context().sandbox!, checkout },
      });
      assert.equal(run.stdout, "started\n");
      assert.ok(Date.now() - started < 10_000);
    });

    it("time out and kill the session user's processes", async () => {
      const result = await runDeadCodeCheck({ command: "echo unused; sleep 30" }, checkout, {
        ...context(),
        defaultTimeoutMs: 1000,
      });
      assert.equal(result.passed, false);
      assert.match(
        result.output_tail,
        /^timed out after 1 s \(process group killed\)\n1 dead-code report\(s\):\nunused/,
      );
    });

    it("run the dead-code command as the session user too", async () => {
      const result = await runDeadCodeCheck(
        { command: "id -un", fail_patterns: ["root"] },
        checkout,
        context(),
      );
      assert.equal(result.passed, true, result.output_tail);
    });

    it("answer a checkout that cannot be lent with why, without running the command", async () => {
      const missing = path.join(root, "no-such-checkout");
      const run = await runCommand({
        command: "true",
        cwd: root,
        timeoutMs: 20_000,
        env: { PATH: process.env.PATH },
        runAs: { sandbox: context().sandbox!, checkout: missing },
      });
      assert.equal(run.exitCode, null);
      assert.match(run.spawnError ?? "", /^chown -R -h \d+:\d+ .*no-such-checkout failed/);
    });
  },
);
