import { describe, it } from "node:test";
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
const fail: CheckResult = { ...pass, kind: "wiring", name: "api registered", passed: false };
const commit = (n: number) => ({ sha: String(n).repeat(40).slice(0, 40), subject: `commit ${n}` });

function evidence(overrides: Partial<StageEvidence>): StageEvidence {
  return {
    kind: "stage",
    stageType: "standard",
    session: { status: "completed", reason: "the session finished" },
    commits: [commit(1)],
    checks: [pass],
    permissionDenials: [],
    ...overrides,
  };
}

/** The verdict and its full reason, as the stage's check run shows them. */
const cases: [string, Partial<StageEvidence>, string, string][] = [
  [
    "several commits and checks are counted in the plural",
    { commits: [commit(1), commit(2)], checks: [pass, pass] },
    "completed",
    "2 commits; all 2 checks pass",
  ],
  [
    "commits without checks say nothing was verified",
    { checks: null },
    "completed",
    "1 commit; the stage declares no checks, nothing was verified",
  ],
  [
    "several refused tool uses are counted",
    { permissionDenials: ["Bash rm -rf /", "Write /etc/passwd"] },
    "completed",
    "1 commit; all 1 check pass; 2 tool uses refused",
  ],
  [
    "a failure names the first failed check of several",
    { checks: [pass, fail, { ...fail, name: "second" }] },
    "completed-with-failures",
    "2 of 3 checks failed, first: wiring api registered",
  ],
  [
    "an unfinished merge wins over failed checks",
    { uncommittedReason: "the merge was left unfinished", checks: [fail], permissionDenials: ["x"] },
    "completed-with-failures",
    "the merge was left unfinished; 1 tool use refused",
  ],
  [
    "a failed check fails a recovery session that committed nothing",
    { kind: "recovery", commits: [], checks: [fail] },
    "completed-with-failures",
    "1 of 1 check failed, first: wiring api registered",
  ],
  [
    "a recovery session with nothing to check and no commits is not done",
    { kind: "recovery", commits: [], checks: [] },
    "completed-with-failures",
    "the session made no commits and the stage declares no checks",
  ],
  [
    "a recovery session with passing checks and no commits is done",
    { kind: "recovery", commits: [], checks: [pass, pass] },
    "completed",
    "no new commits; all 2 checks pass",
  ],
  [
    "an integration-verify merge session that committed nothing did not merge",
    { kind: "merge", stageType: "integration-verify", commits: [] },
    "completed-with-failures",
    "the session made no commits though 1 check pass",
  ],
  [
    "a verify stage without commits or checks verified nothing",
    { stageType: "integration-verify", commits: [], checks: [] },
    "completed-with-failures",
    "the session made no commits and the stage declares no checks",
  ],
  [
    "a cancelled run stays cancelled, with its refusals",
    { session: { status: "cancelled", reason: "the run was cancelled" }, permissionDenials: ["x"] },
    "cancelled",
    "the run was cancelled; 1 tool use refused",
  ],
  [
    "a crash with an unfinished merge is a crash, however green",
    { session: { status: "crashed", reason: "exit 1" }, uncommittedReason: "the merge was left unfinished" },
    "crashed",
    "exit 1",
  ],
  [
    "a crash with commits but no checks is a crash",
    { session: { status: "crashed", reason: "exit 1" }, checks: [] },
    "crashed",
    "exit 1",
  ],
  [
    "a crash whose checks did not run is a crash",
    { session: { status: "crashed", reason: "exit 1" }, checks: null, permissionDenials: ["x", "y"] },
    "crashed",
    "exit 1; 2 tool uses refused",
  ],
  [
    "a crash after several commits that pass several checks is completed",
    {
      session: { status: "crashed", reason: "exit 1 without a result" },
      commits: [commit(1), commit(2)],
      checks: [pass, pass],
      permissionDenials: ["x"],
    },
    "completed",
    "exit 1 without a result; but 2 commits exist and all 2 checks pass; 1 tool use refused",
  ],
];

describe("decideStageOutcome gives the outcome and the reason a person reads", () => {
  for (const [name, overrides, outcome, reason] of cases) {
    it(name, () => assert.deepEqual(decideStageOutcome(evidence(overrides)), { outcome, reason }));
  }
});
