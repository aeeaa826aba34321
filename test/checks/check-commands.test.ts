import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, mkdir, writeFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { CheckContext } from "../../action/src/checks/check-context.ts";
import { checkArtifact, checkWiring } from "../../action/src/checks/check-files.ts";
import { runBeforeStageChecks, runStageChecks } from "../../action/src/checks/run-checks.ts";
import { runCommand } from "../../action/src/checks/run-command.ts";
import { runCommandCheck } from "../../action/src/checks/run-command-check.ts";
import { runDeadCodeCheck } from "../../action/src/checks/run-dead-code-check.ts";
import { CheckResult } from "../../src/artifacts/stage-result.ts";
import { Stage } from "../../src/plan/plan.ts";

let dir = "";
const env = { PATH: process.env.PATH, HOME: process.env.HOME };

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "loom-check-commands-"));
  const files: Record<string, string> = {
    "src/main.ts": 'import { api } from "./api.ts";\nregisterApi(api);\n',
    "src/a.ts": "export const a = 1;\n",
    "src/b.ts": "export const b = 2;\n// wired here\nuse(b);\n",
    "src/stub.ts": "export function f() {\n  // TODO\n}\n",
    "src/nested/deep.ts": "export {};\n",
    "big/late-todo.ts": `${"x".repeat(2 * 1024 * 1024)}\n// TODO\n`,
  };
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), text);
  }
});
after(() => rm(dir, { recursive: true, force: true }));

/** A clock that moves `step` ms on every reading. */
function ticking(step: number): () => number {
  let t = 1000;
  return () => (t += step);
}

function context(overrides: Partial<CheckContext> = {}): CheckContext {
  return { workspace: dir, env, knownSecrets: [], defaultTimeoutMs: 20_000, now: Date.now, ...overrides };
}

/** The checks below wait on sleeps and timeouts: they run side by side. */
const concurrently = { concurrency: true };

describe("checks that run commands and read files", concurrently, () => {
  describe("checkArtifact", concurrently, () => {
    it("passes files that exist with content, counting the files a glob matched", async () => {
      const result = await checkArtifact("src/[ab].ts", dir, context({ now: ticking(7.4) }));
      assert.deepEqual(result, {
        kind: "artifact",
        name: "src/[ab].ts",
        passed: true,
        duration_ms: 7,
        output_tail: "2 file(s) exist with content",
      });
    });

    it("names each stub among the matched files by its path from working_dir", async () => {
      const result = await checkArtifact("*.ts", path.join(dir, "src"), context());
      assert.equal(result.passed, false);
      assert.equal(result.output_tail, "stub.ts: contains TODO at line 2");
    });

    it("counts a directory as existing", async () => {
      const result = await checkArtifact("src/nested", dir, context());
      assert.equal(result.passed, true);
      assert.equal(result.output_tail, "1 file(s) exist with content");
    });

    it("refuses a path or glob that leaves the checkout", async () => {
      for (const pattern of ["../outside.ts", "../*.ts", "src/../../x/*.ts"]) {
        const result = await checkArtifact(pattern, dir, context());
        assert.equal(result.passed, false, pattern);
        assert.equal(result.output_tail, "the path leaves the checkout", pattern);
      }
    });

    it("reports a missing file and a glob that matches nothing", async () => {
      const missing = await checkArtifact("src/gone.ts", dir, context());
      assert.equal(missing.output_tail, "src/gone.ts does not exist");
      const none = await checkArtifact("docs/*.md", dir, context());
      assert.equal(none.output_tail, "no file matches");
    });

    it("reads only the first 2 MiB of a file for stub markers", async () => {
      assert.equal((await checkArtifact("big/late-todo.ts", dir, context())).passed, true);
    });

    it("keeps a long name within 1024 characters and a duration that never runs backwards", async () => {
      let t = 5000;
      const result = await checkArtifact(
        `src/${"n".repeat(1100)}.ts`,
        dir,
        context({ now: () => (t -= 10) }),
      );
      assert.equal(result.name.length, 1024);
      assert.equal(result.duration_ms, 0);
      assert.ok(CheckResult.safeParse(result).success);
    });
  });

  describe("checkWiring", concurrently, () => {
    it("matches line-anchored patterns on any line and names the file and line", async () => {
      const result = await checkWiring({ source: "src/main.ts", pattern: "^registerApi\\(" }, dir, context());
      assert.deepEqual(
        { name: result.name, passed: result.passed, output_tail: result.output_tail },
        {
          name: "^registerApi\\( in src/main.ts",
          passed: true,
          output_tail: "matched in src/main.ts at line 2",
        },
      );
    });

    it("keeps a pattern's own (?m) flag", async () => {
      const result = await checkWiring({ source: "src/b.ts", pattern: "(?m)^use\\(b\\);$" }, dir, context());
      assert.equal(result.output_tail, "matched in src/b.ts at line 3");
    });

    it("searches every file a glob source matches", async () => {
      const result = await checkWiring(
        { source: "src/*.ts", pattern: "wired here", description: "b is wired" },
        dir,
        context(),
      );
      assert.equal(result.name, "b is wired");
      assert.equal(result.output_tail, "matched in src/b.ts at line 2");
    });

    it("says whether the source had no match or does not exist", async () => {
      const noMatch = await checkWiring({ source: "src/*.ts", pattern: "registerAdmin" }, dir, context());
      assert.equal(noMatch.passed, false);
      assert.equal(noMatch.output_tail, "pattern /registerAdmin/: no match in src/*.ts");
      const directory = await checkWiring({ source: "src/nested", pattern: "x" }, dir, context());
      assert.equal(directory.output_tail, "pattern /x/: src/nested does not exist");
    });

    it("refuses an invalid pattern and a source outside the checkout", async () => {
      const invalid = await checkWiring({ source: "src/main.ts", pattern: "(?x)a" }, dir, context());
      assert.equal(invalid.passed, false);
      assert.equal(invalid.output_tail, 'invalid pattern: inline flag "x" is not supported (use i, m or s)');
      const outside = await checkWiring({ source: "../x.ts", pattern: "x" }, dir, context());
      assert.equal(outside.output_tail, "the source path leaves the checkout");
    });

    it("reads only the first 2 MiB of a source file", async () => {
      const result = await checkWiring({ source: "big/late-todo.ts", pattern: "TODO" }, dir, context());
      assert.equal(result.passed, false);
    });
  });

  describe("runCommand", concurrently, () => {
    const options = { cwd: dir, timeoutMs: 20_000, env };

    it("keeps only the last maxOutput characters of each stream", async () => {
      const result = await runCommand({
        ...options,
        cwd: dir,
        command: "printf abcdefghij; printf 0123456789 >&2",
        maxOutput: 4,
      });
      assert.equal(result.stdout, "ghij");
      assert.equal(result.stderr, "6789");
    });

    it("passes the given environment and working directory", async () => {
      const result = await runCommand({
        ...options,
        cwd: path.join(dir, "src"),
        env: { ...env, WHO: "loom" },
        command: 'echo "$WHO"; pwd',
      });
      assert.equal(result.exitCode, 0);
      assert.equal(result.stdout, `loom\n${path.join(dir, "src")}\n`);
    });

    it("reports a process killed by a signal with no exit code and no timeout", async () => {
      const result = await runCommand({ ...options, cwd: dir, command: "echo before; kill -9 $$" });
      assert.deepEqual(
        { exitCode: result.exitCode, timedOut: result.timedOut, stdout: result.stdout },
        { exitCode: null, timedOut: false, stdout: "before\n" },
      );
    });

    it("answers a shell that cannot start with its error", async () => {
      const result = await runCommand({ ...options, cwd: path.join(dir, "no-such-dir"), command: "true" });
      assert.equal(result.exitCode, null);
      assert.match(result.spawnError ?? "", /ENOENT/);
    });

    it("kills background processes left behind once the command exits", async () => {
      const marker = path.join(dir, "leftover-survived");
      const result = await runCommand({
        ...options,
        cwd: dir,
        command: `(sleep 2; touch ${marker}) & echo done`,
      });
      assert.equal(result.exitCode, 0);
      // Had the check waited for the leftover, the leftover would have written its marker by now.
      assert.equal(existsSync(marker), false, "the leftover does not hold the check open");
      await new Promise((resolve) => setTimeout(resolve, 2500));
      assert.equal(existsSync(marker), false, "the leftover was killed");
    });

    it("measures its duration with the given clock", async () => {
      const result = await runCommand({ ...options, cwd: dir, command: "true", now: ticking(250) });
      assert.equal(result.durationMs, 250);
    });
  });

  describe("runCommandCheck", concurrently, () => {
    it("a check's result: clipped name and command, exit code, duration from the run", async () => {
      const command = `echo "$WHO" ; exit 3 # ${"c".repeat(5000)}`;
      const result = await runCommandCheck(
        { kind: "acceptance", name: "n".repeat(2000), command, cwd: dir, criteria: { exit_code: 3 } },
        context({ env: { ...env, WHO: "loom" }, now: ticking(12.6) }),
      );
      assert.equal(result.passed, true);
      assert.equal(result.exit_code, 3);
      assert.equal(result.duration_ms, 13);
      assert.equal(result.name, `${"n".repeat(1023)}…`);
      assert.equal(result.command, `${command.slice(0, 4095)}…`);
      assert.equal(result.output_tail, "--- stdout ---\nloom");
      assert.equal(result.locations, undefined);
      assert.ok(CheckResult.safeParse(result).success);
    });

    it("keeps a name and command at their limits whole", async () => {
      const command = `true # ${"c".repeat(4096 - 7)}`;
      const result = await runCommandCheck(
        { kind: "setup", name: "n".repeat(1024), command, cwd: dir, criteria: {} },
        context(),
      );
      assert.equal(result.name, "n".repeat(1024));
      assert.equal(result.command, command);
    });

    it("times out after the context's default when the check sets no timeout", async () => {
      const result = await runCommandCheck(
        { kind: "acceptance", name: "slow", command: "sleep 10", cwd: dir, criteria: {} },
        context({ defaultTimeoutMs: 1000 }),
      );
      assert.equal(result.passed, false);
      assert.equal(result.exit_code, undefined);
      assert.equal(result.output_tail, "timed out after 1 s (process group killed)");
    });

    it("runs as the action's user when the sandbox has no isolation", async () => {
      const sandbox = {
        isolation: { kind: "none" as const, reason: "no sudo" },
        home: dir,
        privateDir: dir,
        owner: { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 },
      };
      const result = await runCommandCheck(
        {
          kind: "acceptance",
          name: "id",
          command: "echo ok",
          cwd: dir,
          criteria: { stdout_contains: ["ok"] },
        },
        context({ sandbox }),
      );
      assert.equal(result.passed, true);
    });
  });

  describe("runDeadCodeCheck", concurrently, () => {
    it("passes a build without dead-code reports, whatever its exit code", async () => {
      const result = await runDeadCodeCheck(
        { command: "echo compiled; exit 2" },
        dir,
        context({ now: ticking(3) }),
      );
      assert.deepEqual(result, {
        kind: "dead_code",
        name: "echo compiled; exit 2",
        command: "echo compiled; exit 2",
        passed: true,
        duration_ms: 3,
        output_tail: "no dead-code reports",
        exit_code: 2,
      });
    });

    it("lists at most 50 reports after their count, then the output", async () => {
      const command = 'for i in $(seq 1 60); do echo "warning: fn f$i is never used"; done';
      const result = await runDeadCodeCheck({ command }, dir, context());
      assert.equal(result.passed, false);
      const lines = result.output_tail.split("\n");
      assert.equal(lines[0], "60 dead-code report(s):");
      assert.equal(lines[1], "warning: fn f1 is never used");
      assert.equal(lines[50], "warning: fn f50 is never used");
      assert.equal(lines[51], "--- stdout ---");
    });

    it("fails on a timeout, with no exit code", async () => {
      const result = await runDeadCodeCheck(
        { command: "sleep 10" },
        dir,
        context({ defaultTimeoutMs: 1000 }),
      );
      assert.equal(result.passed, false);
      assert.equal(result.exit_code, undefined);
      assert.equal(result.output_tail, "timed out after 1 s (process group killed)");
    });

    it("fails when the shell cannot start", async () => {
      const result = await runDeadCodeCheck({ command: "true" }, path.join(dir, "no-such-dir"), context());
      assert.equal(result.passed, false);
      assert.match(result.output_tail, /^could not start: .*ENOENT/);
    });

    it("keeps a long command within the result's limits", async () => {
      const command = `true # ${"c".repeat(5000)}`;
      const result = await runDeadCodeCheck({ command }, dir, context());
      assert.equal(result.name, command.slice(0, 1024));
      assert.equal(result.command, command.slice(0, 4096));
    });
  });

  describe("runStageChecks and runBeforeStageChecks", concurrently, () => {
    it("name each check as the plan describes it and honour its own timeout", async () => {
      const stage = Stage.parse({
        id: "s",
        name: "s",
        setup: ["true"],
        acceptance: [
          { command: "exit 5", description: "exits five", exit_code: 5 },
          { command: "sleep 10", timeout_secs: 1 },
        ],
        wiring_tests: [
          { command: "echo a", description: "described" },
          { command: "echo b" },
          { command: "exit 1", name: "named", description: "ignored" },
        ],
      });
      const results = await runStageChecks(stage, context());
      assert.deepEqual(
        results.map((r) => [r.kind, r.name, r.passed]),
        [
          ["setup", "true", true],
          ["acceptance", "exits five", true],
          ["acceptance", "sleep 10", false],
          ["wiring_test", "described", true],
          ["wiring_test", "echo b", true],
          ["wiring_test", "named", false],
        ],
      );
      assert.equal(results[2]?.output_tail, "timed out after 1 s (process group killed)");
    });

    it("refuse a working_dir outside the checkout with one failed setup check", async () => {
      const stage = Stage.parse({
        id: "s",
        name: "s",
        working_dir: "../up",
        before_stage: [{ command: "true" }],
      });
      const expected = [
        {
          kind: "setup",
          name: "working_dir ../up",
          passed: false,
          duration_ms: 0,
          output_tail: `working_dir "../up" leaves the checkout ${dir}`,
        },
      ];
      assert.deepEqual(await runBeforeStageChecks(stage, context()), expected);
      assert.deepEqual(await runStageChecks(stage, context()), expected);
    });

    it("run before_stage checks from working_dir with their criteria", async () => {
      const stage = Stage.parse({
        id: "s",
        name: "s",
        working_dir: "src",
        before_stage: [{ command: "ls", stdout_contains: ["main.ts"], description: "main exists" }],
      });
      const results = await runBeforeStageChecks(stage, context());
      assert.deepEqual(
        results.map((r) => [r.kind, r.name, r.passed]),
        [["before_stage", "main exists", true]],
      );
    });
  });
});
