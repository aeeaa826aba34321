import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, mkdir, writeFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { runBeforeStageChecks, runStageChecks } from "../../action/src/checks/run-checks.ts";
import type { CheckContext } from "../../action/src/checks/check-context.ts";
import { Stage } from "../../src/plan/plan.ts";
import { StageResult, OUTPUT_TAIL_MAX } from "../../src/artifacts/stage-result.ts";

async function workspace(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "loom-checks-"));
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), text);
  }
  return dir;
}

function context(dir: string, overrides: Partial<CheckContext> = {}): CheckContext {
  return {
    workspace: dir,
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    knownSecrets: [],
    defaultTimeoutMs: 20_000,
    now: Date.now,
    ...overrides,
  };
}

test("acceptance commands pass and fail on exit code and extended criteria, run from working_dir", async (t) => {
  const dir = await workspace({ "pkg/hello.txt": "hello world\n" });
  t.after(() => rm(dir, { recursive: true, force: true }));
  const stage = Stage.parse({
    id: "s",
    name: "s",
    working_dir: "pkg",
    acceptance: [
      "cat hello.txt",
      "echo boom >&2; exit 3",
      {
        command: "cat hello.txt",
        stdout_contains: ["hello"],
        stdout_not_contains: ["panic"],
        stderr_empty: true,
      },
      { command: "cat hello.txt", stdout_contains: ["goodbye"] },
      { command: "exit 4", exit_code: 4 },
      { command: "echo warn >&2", stderr_empty: true },
    ],
  });
  const results = await runStageChecks(stage, context(dir));
  assert.deepEqual(
    results.map((r) => [r.kind, r.passed]),
    [
      ["acceptance", true],
      ["acceptance", false],
      ["acceptance", true],
      ["acceptance", false],
      ["acceptance", true],
      ["acceptance", false],
    ],
  );
  assert.equal(results[1]?.exit_code, 3);
  assert.match(results[1]?.output_tail ?? "", /exit code 3, expected 0[\s\S]*boom/);
  assert.match(results[3]?.output_tail ?? "", /stdout does not contain "goodbye"/);
  assert.match(results[5]?.output_tail ?? "", /stderr is not empty/);
});

test("a command that outlives its timeout is killed with its whole process group", async (t) => {
  const dir = await workspace({});
  t.after(() => rm(dir, { recursive: true, force: true }));
  const marker = path.join(dir, "child-survived");
  const stage = Stage.parse({
    id: "s",
    name: "s",
    acceptance: [{ command: `(sleep 3; touch ${marker}) & sleep 30`, timeout_secs: 1 }],
  });
  const [result] = await runStageChecks(stage, context(dir));
  assert.equal(result?.passed, false);
  assert.equal(result?.exit_code, undefined);
  assert.match(result?.output_tail ?? "", /timed out after 1 s/);
  await new Promise((resolve) => setTimeout(resolve, 3500));
  const { existsSync } = await import("node:fs");
  assert.equal(existsSync(marker), false, "the background child was killed too");
});

test("output tails are bounded and redacted", async (t) => {
  const dir = await workspace({});
  t.after(() => rm(dir, { recursive: true, force: true }));
  const secret = "s3cr3t-value-xyz";
  const stage = Stage.parse({
    id: "s",
    name: "s",
    acceptance: [
      `for i in $(seq 1 5000); do echo line $i; done; echo token=${secret}; echo ghp_abcdefghijklmnopqrstuvwxyz0123456789; exit 1`,
    ],
  });
  const [result] = await runStageChecks(stage, context(dir, { knownSecrets: [secret] }));
  assert.ok(result !== undefined);
  assert.ok(result.output_tail.length <= OUTPUT_TAIL_MAX);
  assert.match(result.output_tail, /^exit code 1, expected 0/);
  assert.match(result.output_tail, /token=\[REDACTED\]/);
  assert.doesNotMatch(result.output_tail, /s3cr3t|ghp_abc/);
  assert.match(result.output_tail, /line 5000/);
});

test("artifacts must exist and not be stubs", async (t) => {
  const dir = await workspace({
    "src/real.ts": "export const x = 1;\n",
    "src/empty.ts": "  \n",
    "src/todo.rs": "fn main() {\n    todo!()\n}\n",
    "src/unimpl.ts": 'export function f() {\n  throw new Error("not implemented");\n}\n',
    "src/marker.py": "def f():\n    pass  # TODO\n",
    "lib/a.ts": "export const a = 1;\n",
    "lib/b.ts": "export const b = 2;\n",
  });
  t.after(() => rm(dir, { recursive: true, force: true }));
  const stage = Stage.parse({
    id: "s",
    name: "s",
    artifacts: [
      "src/real.ts",
      "src/missing.ts",
      "src/empty.ts",
      "src/todo.rs",
      "src/unimpl.ts",
      "src/marker.py",
      "lib/*.ts",
      "nothing/*.ts",
    ],
  });
  const results = await runStageChecks(stage, context(dir));
  assert.deepEqual(
    results.map((r) => [r.name, r.passed]),
    [
      ["src/real.ts", true],
      ["src/missing.ts", false],
      ["src/empty.ts", false],
      ["src/todo.rs", false],
      ["src/unimpl.ts", false],
      ["src/marker.py", false],
      ["lib/*.ts", true],
      ["nothing/*.ts", false],
    ],
  );
  assert.match(results[1]?.output_tail ?? "", /does not exist/);
  assert.match(results[2]?.output_tail ?? "", /empty/);
  assert.match(results[3]?.output_tail ?? "", /todo!\(\) at line 2/);
  assert.match(results[4]?.output_tail ?? "", /not implemented/);
  assert.match(results[5]?.output_tail ?? "", /TODO at line 2/);
  assert.match(results[7]?.output_tail ?? "", /no file matches/);
});

test("wiring regexes must match in their source files", async (t) => {
  const dir = await workspace({
    "src/main.ts": 'import { api } from "./api.ts";\napp.use(registerApi(api));\n',
  });
  t.after(() => rm(dir, { recursive: true, force: true }));
  const stage = Stage.parse({
    id: "s",
    name: "s",
    wiring: [
      { source: "src/main.ts", pattern: "registerApi\\(", description: "API registered" },
      { source: "src/main.ts", pattern: "registerAdmin\\(", description: "admin registered" },
      { source: "src/gone.ts", pattern: "x" },
      { source: "src/main.ts", pattern: "(?i)REGISTERAPI\\(", description: "Rust inline flags" },
      { source: "src/main.ts", pattern: "app.use(registerApi(api))", literal: true, description: "literal" },
    ],
  });
  const results = await runStageChecks(stage, context(dir));
  assert.deepEqual(
    results.map((r) => [r.kind, r.name, r.passed]),
    [
      ["wiring", "API registered", true],
      ["wiring", "admin registered", false],
      ["wiring", "x in src/gone.ts", false],
      ["wiring", "Rust inline flags", true],
      ["wiring", "literal", true],
    ],
  );
  assert.match(results[0]?.output_tail ?? "", /line 2/);
  assert.match(results[2]?.output_tail ?? "", /does not exist/);
});

test("wiring tests, dead-code check, setup and after_stage run with their own criteria", async (t) => {
  const dir = await workspace({});
  t.after(() => rm(dir, { recursive: true, force: true }));
  const stage = Stage.parse({
    id: "s",
    name: "s",
    setup: ["echo ready > setup.txt"],
    acceptance: ["test -f setup.txt"],
    wiring_tests: [
      { name: "cli answers", command: "echo pong", success_criteria: { stdout_contains: ["pong"] } },
      { name: "cli fails", command: "echo nope", success_criteria: { stdout_contains: ["pong"] } },
    ],
    dead_code_check: {
      command: "echo 'warning: function `old` is never used'; echo 'warning: x is never used (allowed)'",
      fail_patterns: ["never used"],
      ignore_patterns: ["(allowed)"],
    },
    after_stage: [{ command: "cat setup.txt", stdout_contains: ["ready"] }],
  });
  const results = await runStageChecks(stage, context(dir));
  assert.deepEqual(
    results.map((r) => [r.kind, r.passed]),
    [
      ["setup", true],
      ["acceptance", true],
      ["wiring_test", true],
      ["wiring_test", false],
      ["dead_code", false],
      ["after_stage", true],
    ],
  );
  assert.match(
    results[4]?.output_tail ?? "",
    /1 dead-code report\(s\):\nwarning: function `old` is never used/,
  );
  const stageResult = { checks: results };
  assert.ok(StageResult.shape.checks.safeParse(stageResult.checks).success);
});

test("before_stage checks run on their own and a working_dir outside the checkout fails", async (t) => {
  const dir = await workspace({ "a.txt": "x" });
  t.after(() => rm(dir, { recursive: true, force: true }));
  const stage = Stage.parse({
    id: "s",
    name: "s",
    before_stage: [{ command: "test -f a.txt" }, { command: "test -f b.txt" }],
  });
  const results = await runBeforeStageChecks(stage, context(dir));
  assert.deepEqual(
    results.map((r) => [r.kind, r.passed]),
    [
      ["before_stage", true],
      ["before_stage", false],
    ],
  );
  const escaping = Stage.parse({ id: "s", name: "s", working_dir: "../..", acceptance: ["true"] });
  const [bad] = await runStageChecks(escaping, context(dir));
  assert.equal(bad?.passed, false);
  assert.match(bad?.output_tail ?? "", /leaves the checkout/);
});

test("a failed check records the files and lines of the checkout its output names; a passing one none", async (t) => {
  const dir = await workspace({ "pkg/src/lib.ts": "export {}\n", "pkg/README.md": "x\n" });
  t.after(() => rm(dir, { recursive: true, force: true }));
  const stage = Stage.parse({
    id: "s",
    name: "s",
    working_dir: "pkg",
    acceptance: [
      "echo 'src/lib.ts(3,7): error TS2304: Cannot find name x.' ; echo 'at /etc/hosts:1' ; exit 2",
      "echo 'src/lib.ts:1:1 fine'",
    ],
  });
  const [failed, passed] = await runStageChecks(stage, context(dir));
  assert.deepEqual(failed?.locations, [{ path: "pkg/src/lib.ts", line: 3, column: 7 }]);
  assert.equal(passed?.passed, true);
  assert.equal(passed?.locations, undefined);
  assert.ok(StageResult.shape.checks.element.safeParse(failed).success, "a valid loom-result check");
});
