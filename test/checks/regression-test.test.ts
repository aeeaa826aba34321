import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { runStageChecks } from "../../action/src/checks/run-checks.ts";
import { Stage } from "../../src/plan/plan.ts";
import { renderGoalBackwardSection } from "../../src/signal/goal-backward-section.ts";

const bugFix = (file: string, must_contain: string[]): Stage =>
  Stage.parse({
    id: "fix",
    name: "Fix",
    working_dir: "pkg",
    bug_fix: true,
    regression_test: { file, must_contain },
  });

test("a bug-fix stage's regression test must exist under working_dir, hold content and each must_contain", async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), "loom-regression-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await mkdir(path.join(dir, "pkg", "test"), { recursive: true });
  await writeFile(
    path.join(dir, "pkg", "test", "parser.test.ts"),
    'test("off_by_one", () => parse("a,b"));\n',
  );
  await writeFile(path.join(dir, "pkg", "test", "empty.test.ts"), "  \n");
  const ctx = { workspace: dir, env: {}, knownSecrets: [], defaultTimeoutMs: 5000, now: Date.now };
  const run = async (file: string, must: string[]) => {
    const [check] = await runStageChecks(bugFix(file, must), ctx);
    return [check?.kind, check?.name, check?.passed, check?.output_tail];
  };
  assert.deepEqual(await run("test/parser.test.ts", ["off_by_one", "parse("]), [
    "regression_test",
    "test/parser.test.ts",
    true,
    "test/parser.test.ts exists and contains all 2 required patterns",
  ]);
  assert.deepEqual(await run("test/parser.test.ts", ["off_by_one", "trailing_comma", "empty"]), [
    "regression_test",
    "test/parser.test.ts",
    false,
    'regression test file test/parser.test.ts is missing 2 required pattern(s): "trailing_comma", "empty"',
  ]);
  assert.deepEqual(await run("test/missing.test.ts", ["x"]), [
    "regression_test",
    "test/missing.test.ts",
    false,
    "regression test file missing: test/missing.test.ts does not exist",
  ]);
  assert.deepEqual(
    (await run("test/empty.test.ts", ["x"]))[3],
    "regression test file is empty: test/empty.test.ts",
  );
});

test("the session is told which regression test loom checks", () => {
  const text = renderGoalBackwardSection(bugFix("test/parser.test.ts", ["off_by_one"]));
  assert.match(
    text,
    /### Regression Test \(this stage fixes a bug.*\)\n\n- `test\/parser.test.ts` contains "off_by_one"/,
  );
});
