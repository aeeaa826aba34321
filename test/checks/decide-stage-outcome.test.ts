import { test } from "node:test";
import assert from "node:assert/strict";
import { decideStageOutcome, type StageEvidence } from "../../action/src/checks/decide-stage-outcome.ts";
import type { CheckResult } from "../../src/artifacts/stage-result.ts";

const pass: CheckResult = {
  kind: "acceptance",
  name: "npm test",
  passed: true,
  duration_ms: 1,
  output_tail: "",
};
const fail: CheckResult = { ...pass, name: "npm run lint", passed: false };
const commit = { sha: "a".repeat(40), subject: "Add x" };

function evidence(overrides: Partial<StageEvidence>): StageEvidence {
  return {
    kind: "stage",
    stageType: "standard",
    session: { status: "completed", reason: "the session finished" },
    commits: [commit],
    checks: [pass],
    permissionDenials: [],
    ...overrides,
  };
}

const cases: [string, Partial<StageEvidence>, string, RegExp][] = [
  ["commits and passing checks complete the stage", {}, "completed", /1 commit; all 1 check pass/],
  [
    "a failing check is completed-with-failures naming it",
    { checks: [pass, fail] },
    "completed-with-failures",
    /1 of 2 checks failed, first: acceptance npm run lint/,
  ],
  [
    "no commits and no checks is never completed",
    { commits: [], checks: [] },
    "completed-with-failures",
    /no commits and the stage declares no checks/,
  ],
  [
    "no commits with passing checks is not completed for a standard stage",
    { commits: [] },
    "completed-with-failures",
    /no commits though 1 check pass/,
  ],
  [
    "a verify stage with nothing to fix completes when its checks pass",
    { commits: [], stageType: "integration-verify" },
    "completed",
    /no new commits; all 1 check pass/,
  ],
  [
    "a recovery session may find the work already done",
    { commits: [], kind: "recovery" },
    "completed",
    /no new commits/,
  ],
  [
    "a completed stage run again (its merge already on the head) completes without new commits when its checks pass",
    { commits: [], mergedBefore: true },
    "completed",
    /no new commits: its work was merged before and all 1 check pass at this head/,
  ],
  [
    "a stage run again whose checks fail at the new head fails, merged before or not",
    { commits: [], mergedBefore: true, checks: [pass, fail] },
    "completed-with-failures",
    /1 of 2 checks failed/,
  ],
  [
    "a merge session that committed nothing did not resolve the conflict",
    { commits: [], kind: "merge" },
    "completed-with-failures",
    /no commits/,
  ],
  [
    "commits with no declared checks complete, saying nothing was verified",
    { checks: [] },
    "completed",
    /nothing was verified/,
  ],
  [
    "an unfinished merge is a failure",
    { kind: "merge", uncommittedReason: "the merge was left unfinished" },
    "completed-with-failures",
    /left unfinished/,
  ],
  [
    "a hung session stays hung even with commits",
    { session: { status: "hung", reason: "no output for 600 s" }, checks: null },
    "hung",
    /no output/,
  ],
  [
    "crossing the context budget is needs-handoff",
    { session: { status: "needs-handoff", reason: "context 66 %" }, checks: null },
    "needs-handoff",
    /context/,
  ],
  [
    "the turn cap hands off",
    { session: { status: "max-turns", reason: "turn limit" }, checks: null },
    "needs-handoff",
    /turn limit/,
  ],
  [
    "the spending cap is timed-out",
    { session: { status: "budget-exceeded", reason: "spending cap" }, checks: null },
    "timed-out",
    /spending cap/,
  ],
  [
    "a crash without proof of work is crashed",
    { session: { status: "crashed", reason: "exit code 1 without a result" }, commits: [] },
    "crashed",
    /without a result/,
  ],
  [
    "a crash after committing work that passes every check is completed",
    { session: { status: "crashed", reason: "exit code 1 without a result" } },
    "completed",
    /but 1 commit exist and all 1 check pass/,
  ],
  [
    "a crash with a failing check stays crashed",
    { session: { status: "crashed", reason: "boom" }, checks: [fail] },
    "crashed",
    /boom/,
  ],
  [
    "refused tool uses are named in the reason",
    { permissionDenials: ["Bash rm -rf /"] },
    "completed",
    /1 tool use refused/,
  ],
];

for (const [name, overrides, outcome, reason] of cases) {
  test(name, () => {
    const verdict = decideStageOutcome(evidence(overrides));
    assert.equal(verdict.outcome, outcome);
    assert.match(verdict.reason, reason);
  });
}
