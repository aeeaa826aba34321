import { test } from "node:test";
import assert from "node:assert/strict";
import { StageResult } from "../../src/artifacts/stage-result.ts";

const valid = {
  version: 1,
  plan_id: "PLAN-demo",
  stage_id: "build",
  attempt: 1,
  kind: "stage",
  outcome: "completed",
  reason: "2 commits, 1 acceptance check passed",
  checks: [
    {
      kind: "acceptance",
      name: "npm test",
      command: "npm test",
      passed: true,
      exit_code: 0,
      duration_ms: 12,
      output_tail: "ok",
    },
  ],
  commits: [{ sha: "a".repeat(40), subject: "Add x" }],
  head_sha: "a".repeat(40),
  turns: 3,
  tokens: { input: 1, output: 2, cache_read: 0, cache_creation: 0 },
  cost_usd: 0.01,
  duration_ms: 1000,
  context_percent: 12.5,
  deviations: [],
  permission_denials: [],
};

test("a complete loom-result document validates", () => {
  assert.equal(StageResult.safeParse(valid).success, true);
});

test("a result with an unknown outcome or a missing head sha is refused", () => {
  assert.equal(StageResult.safeParse({ ...valid, outcome: "green" }).success, false);
  const { head_sha: _, ...noHead } = valid;
  assert.equal(StageResult.safeParse(noHead).success, false);
});

test("an unbounded output tail is refused", () => {
  const check = { ...valid.checks[0], output_tail: "x".repeat(5000) };
  assert.equal(StageResult.safeParse({ ...valid, checks: [check] }).success, false);
});
