import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runLoom } from "./run-loom.ts";

const FIXTURE = "test/fixtures/plans/PLAN-complex.md";

describe("loom prompt <plan> <stage>", () => {
  it("prints the signal a stage session would get, naming the stage, its branch and its acceptance", () => {
    const { code, stdout, stderr } = runLoom(["prompt", FIXTURE, "api"]);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /\*\*Stage\*\*: .*\(`api`\)/);
    assert.match(stdout, /`loom\/PLAN-complex\/api`/);
    assert.match(stdout, /## Acceptance Criteria/);
    const order = ["## Session Rules", "## Target", "## Assignment", "## Immediate Tasks"].map((h) =>
      stdout.indexOf(h),
    );
    assert.ok(
      order.every((i) => i >= 0),
      "every section is present",
    );
    assert.deepEqual(
      [...order].sort((a, b) => a - b),
      order,
      "sections keep the reference order",
    );
  });

  it("prints a merge session's task when asked for --kind merge", () => {
    const { code, stdout, stderr } = runLoom(["prompt", FIXTURE, "api", "--kind", "merge", "--attempt", "2"]);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /merge, attempt 2/);
  });

  it("names the valid stages when the stage does not exist, with exit 2", () => {
    const { code, stdout, stderr } = runLoom(["prompt", FIXTURE, "nope"]);
    assert.equal(code, 2);
    assert.equal(stdout, "");
    assert.match(stderr, /no stage "nope".*its stages are: .*api/);
  });

  it("refuses a missing stage argument and a bad --kind with usage, exit 2", () => {
    assert.equal(runLoom(["prompt", FIXTURE]).code, 2);
    const bad = runLoom(["prompt", FIXTURE, "api", "--kind", "party"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--kind must be one of stage, recovery, merge/);
  });
});
