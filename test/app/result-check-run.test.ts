import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { formatResultCheckRun, type CarriedOutcome } from "../../src/artifacts/result-check-run.ts";
import type { StageResult } from "../../src/artifacts/stage-result.ts";
import { readStoredPlan } from "../../app/engine/stored-plan.ts";
import { pullRequestPayload, resultCheckRunPayload } from "../support/webhook-payloads.ts";
import { completeRun, runWebhook, startHarness, type Harness } from "./loom-harness.ts";
import { checkedSha, passingResult } from "./stage-results.ts";

/*
 * A stage run's publish job, once it pushed the stage's work, creates a `loom result` check run
 * with its job token: GitHub reports it to loom's App (checks permission), and loom takes the run's
 * outcome from it without reading the run or its artifacts. Only GitHub Actions' own check run, on
 * the pushed commit, for the run loom recorded and its dispatch key, is believed.
 */

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

async function openDiamond(): Promise<Harness> {
  const harness = await startHarness();
  await harness.receive(
    "pull_request",
    pullRequestPayload("opened", { number: 1, headSha: harness.headSha }),
  );
  return harness;
}

function dispatchOf(harness: Harness, stageId: string) {
  const dispatch = harness.fake.dispatches.find((d) => d.inputs["stage_id"] === stageId);
  assert.ok(dispatch, `${stageId} was dispatched`);
  return dispatch;
}

/** What stage `stageId`'s publish job reports after pushing `sha` to the stage branch. */
function carried(harness: Harness, stageId: string, changes: Partial<StageResult> = {}): CarriedOutcome {
  const dispatch = dispatchOf(harness, stageId);
  const result = { ...passingResult(stageId), key: dispatch.inputs["key"], ...changes };
  const sha = checkedSha(stageId);
  harness.fake.refs.set(dispatch.inputs["branch"] ?? "", sha);
  return {
    version: 1,
    run_id: dispatch.runId,
    result,
    publish: {
      version: 1,
      ok: true,
      plan_id: "PLAN-diamond",
      stage_id: stageId,
      branch: dispatch.inputs["branch"] ?? "",
      pushed_sha: sha,
      commits_checked: 1,
      refusals: [],
    },
  };
}

function textOf(outcome: CarriedOutcome): string {
  const check = formatResultCheckRun(outcome);
  assert.ok(check);
  return check.text;
}

/** Requests that read a run or its artifacts. */
function runReads(harness: Harness): string[] {
  return harness.gh.requests
    .filter((r) => r.path.includes("/actions/runs/") || r.path.includes("/artifacts"))
    .map((r) => r.path);
}

function stageStatus(harness: Harness, stageId: string): Promise<string | undefined> {
  return harness.store
    .listPlansForPull("acme", "widgets", 1)
    .then(([plan]) => (plan ? readStoredPlan(plan).state.stages[stageId]?.status : undefined));
}

test("a loom result check run merges the stage and starts its dependents without reading the run or its artifacts", async () => {
  h = await openDiamond();
  const outcome = carried(h, "a", { cost_usd: 0.42 });
  await h.receive(
    "check_run",
    resultCheckRunPayload({ id: 77, headSha: checkedSha("a"), text: textOf(outcome) }),
  );
  assert.deepEqual(h.fake.merges, [{ head: "loom/pr-1/PLAN-diamond/a", base: "feature/plan", status: 201 }]);
  assert.deepEqual(h.fake.dispatches.map((d) => d.inputs["stage_id"]).sort(), ["a", "b", "c"]);
  const [plan] = await h.store.listPlansForPull("acme", "widgets", 1);
  assert.ok(plan);
  const session = readStoredPlan(plan).state.stages["a"]?.sessions[0];
  assert.equal(session?.report?.usage.costUsd, 0.42, "the session's cost is the carried result's");
  // The run's own webhooks come after: nothing is read, nothing merged twice.
  const dispatch = dispatchOf(h, "a");
  await h.receive("workflow_run", runWebhook(dispatch, "in_progress"));
  await h.receive("workflow_run", runWebhook(dispatch, "completed"));
  await h.receive(
    "check_run",
    resultCheckRunPayload({ id: 77, headSha: checkedSha("a"), text: textOf(outcome), action: "completed" }),
  );
  assert.deepEqual(runReads(h), []);
  assert.equal(h.fake.merges.length, 1);
  await h.finish();
  h = undefined;
});

const forgeries: [string, (harness: Harness) => Record<string, unknown>][] = [
  [
    "another app's check run of that name",
    (harness) =>
      resultCheckRunPayload({
        id: 78,
        headSha: checkedSha("a"),
        text: textOf(carried(harness, "a")),
        app: { id: 99, slug: "lookalike" },
      }),
  ],
  [
    "a run loom did not record for the stage",
    (harness) => {
      const outcome = carried(harness, "a");
      return resultCheckRunPayload({
        id: 78,
        headSha: checkedSha("a"),
        text: textOf({ ...outcome, run_id: 424242 }),
      });
    },
  ],
  [
    "a check run on another commit than the one its run pushed",
    (harness) =>
      resultCheckRunPayload({ id: 78, headSha: checkedSha("b"), text: textOf(carried(harness, "a")) }),
  ],
  [
    "another dispatch's key",
    (harness) =>
      resultCheckRunPayload({
        id: 78,
        headSha: checkedSha("a"),
        text: textOf(carried(harness, "a", { key: "other:a:1:dispatch" })),
      }),
  ],
  [
    "text that is no loom result",
    (harness) => {
      carried(harness, "a");
      return resultCheckRunPayload({ id: 78, headSha: checkedSha("a"), text: '{"version":1,"run_id":1}' });
    },
  ],
];

for (const [what, payload] of forgeries) {
  test(`a loom result check run is not believed from ${what}: the stage keeps running until its run's artifacts say how it ended`, async () => {
    h = await openDiamond();
    await h.receive("check_run", payload(h));
    assert.deepEqual(h.fake.merges, []);
    assert.equal(await stageStatus(h, "a"), "executing");
    assert.deepEqual(
      h.fake.dispatches.map((d) => d.inputs["stage_id"]),
      ["a"],
    );
    // The run's completed webhook still decides, from its artifacts.
    await completeRun(h, dispatchOf(h, "a"), passingResult("a"));
    assert.equal(h.fake.merges.length, 1);
    assert.ok(runReads(h).length > 0, "its artifacts were read");
    await h.finish();
    h = undefined;
  });
}
