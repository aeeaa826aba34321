import { test } from "node:test";
import assert from "node:assert/strict";
import { renderStageCheckRun } from "../../src/status/render-stage-check-run.ts";
import { renderPlanCheckRun } from "../../src/status/render-plan-check-run.ts";
import { makePlanState } from "./make-plan-state.ts";

test("a stage's check run is `loom: <stage-id>` when its plan is the pull request's only one", () => {
  const state = makePlanState([{ id: "a" }]);
  assert.equal(renderStageCheckRun(state, "a").name, "loom: a");
});

test("two plans of one pull request sharing a stage id get check runs of different names", () => {
  const inPlan = (id: string) => {
    const state = makePlanState([{ id: "a" }], { checkNamesWithPlan: true });
    return { ...state, plan: { ...state.plan, id } };
  };
  const one = inPlan("PLAN-one");
  const two = inPlan("PLAN-two");
  assert.equal(renderStageCheckRun(one, "a").name, "loom: PLAN-one / a");
  assert.equal(renderStageCheckRun(two, "a").name, "loom: PLAN-two / a");
  assert.notEqual(renderPlanCheckRun(one).name, renderPlanCheckRun(two).name);
});
