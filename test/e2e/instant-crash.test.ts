import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { dispatchesOf, type PullRecord } from "./e2e-requests.ts";
import { startE2E, type E2E } from "./harness.ts";
import { planText, scriptStages, writeFiles } from "./model-script.ts";
import { readStageState } from "./read-stage-state.ts";

const PLAN_PATH = "doc/plans/PLAN-instant.md";
const PLAN = planText(
  "Instant",
  `
- id: quick
  name: Quick failure
  description: Write quick.txt
  acceptance: ["grep -q done quick.txt"]
`,
);

/**
 * The run's failure may reach the app (its workflow_run webhooks) before the dispatch request
 * has returned and been recorded: whichever comes first, the stage must still be retried.
 */
describe("a run that fails the instant it is dispatched is still retried", { timeout: 150_000 }, () => {
  let e2e: E2E;
  let pull: PullRecord;
  let retryAt = 0;
  before(async () => {
    e2e = await startE2E({
      script: scriptStages({ quick: writeFiles({ "quick.txt": "done\n" }) }),
      loomConfig: "workflow: loom.yml\nretry:\n  max_attempts: 3\n  backoff_base_seconds: 600\n",
      fault: (job) => (job.attempt === 1 ? "crash-at-once" : null),
    });
    pull = await e2e.openPlan({ files: { [PLAN_PATH]: PLAN } });
    retryAt = await e2e.waitFor("the crash to be recorded and a retry scheduled", async () => {
      const stage = await readStageState(e2e, pull, "quick");
      return stage?.failures === 1 && stage.retryAt !== null ? stage.retryAt : undefined;
    });
    e2e.clock.advance(retryAt - e2e.clock.now() + 1_000);
    await e2e.waitForPlanEnd(pull, "PLAN-instant", 1);
  });
  after(async () => {
    await e2e?.close();
  });

  it("records the crash once and schedules one retry", () => {
    assert.ok(retryAt > 0);
    assert.deepEqual(
      dispatchesOf(e2e.emulator.requests).map((d) => [d.attempt, d.kind]),
      [
        ["1", "stage"],
        ["2", "recovery"],
      ],
    );
  });

  it("ends green with the retry's work on the branch", async () => {
    const plan = (await e2e.checkRuns(pull)).find((r) => r.name === "loom: PLAN-instant");
    assert.equal(plan?.conclusion, "success", e2e.describe());
    assert.equal(await e2e.readFile(pull.headRef, "quick.txt"), "done\n");
  });

  it("made only requests GitHub's OpenAPI description allows", () => {
    e2e.emulator.assertNoViolations();
  });
});
