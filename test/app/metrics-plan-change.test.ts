import assert from "node:assert/strict";
import { test } from "node:test";
import { createMetrics } from "../../app/metrics/create-metrics.ts";
import { recordPlanChange } from "../../app/metrics/record-plan-change.ts";
import { createPlanState } from "../../src/orchestrator/apply-plan.ts";
import { DEFAULT_SETTINGS } from "../../src/orchestrator/events.ts";
import type { Session } from "../../src/orchestrator/state.ts";
import type { PlanState } from "../../src/orchestrator/state.ts";

const opened = createPlanState({
  type: "plan.opened",
  at: 0,
  plan: {
    id: "PLAN-x",
    name: "X",
    path: "doc/plans/PLAN-x.md",
    blobSha: "b".repeat(40),
    stages: [{ id: "a", name: "A", dependencies: [], stageType: "standard" }],
  },
  settings: DEFAULT_SETTINGS,
  pr: { number: 1, headRef: "feature", headSha: "c".repeat(40), baseRef: "main" },
  trusted: true,
  labels: [],
});

function session(attempt: number, outcome: Session["outcome"], kind: Session["kind"] = "stage"): Session {
  return {
    attempt,
    kind,
    status: outcome === null ? "running" : "completed",
    runId: attempt,
    dispatchedAt: 0,
    startedAt: 0,
    finishedAt: outcome === null ? null : 1,
    outcome,
    lastHeartbeat: null,
    lastSeenAt: 0,
    detail: null,
  };
}

function withStage(state: PlanState, change: Partial<PlanState["stages"][string]>): PlanState {
  return { ...state, stages: { a: { ...state.stages["a"]!, ...change } } };
}

function counts() {
  const metrics = createMetrics({
    store: { countBacklog: () => Promise.reject(new Error("unused")) },
    defaultMetrics: false,
  });
  const read = async () => {
    const outcomes = (await metrics.stageOutcomes.get()).values;
    const durations = (await metrics.planDuration.get()).values;
    return {
      outcomes: Object.fromEntries(
        outcomes.map((v) => [`${v.labels["kind"]}:${v.labels["outcome"]}`, v.value]),
      ),
      plans: Object.fromEntries(
        durations
          .filter((v) => v.metricName === "loom_plan_duration_seconds_count")
          .map((v) => [v.labels["end"], v.value]),
      ),
      seconds: durations.find((v) => v.metricName === "loom_plan_duration_seconds_sum")?.value ?? 0,
    };
  };
  return { metrics, read };
}

test("a session that ends counts once, however often the state is committed again", async () => {
  const { metrics, read } = counts();
  const running = withStage(opened, { status: "executing", sessions: [session(1, null)] });
  const crashed = withStage(opened, { status: "queued", sessions: [session(1, "crashed")] });
  const recovered = withStage(opened, {
    status: "completed",
    sessions: [session(1, "crashed"), session(2, "completed", "recovery")],
  });
  recordPlanChange(metrics, null, opened, 0, 0);
  recordPlanChange(metrics, opened, running, 0, 10);
  recordPlanChange(metrics, running, crashed, 0, 20);
  recordPlanChange(metrics, crashed, crashed, 0, 30);
  recordPlanChange(metrics, crashed, recovered, 0, 40);
  assert.deepEqual((await read()).outcomes, { "stage:crashed": 1, "recovery:completed": 1 });
});

test("a plan's duration is observed once, when every stage is merged or skipped, from its opening", async () => {
  const { metrics, read } = counts();
  const done = withStage(opened, { status: "completed", merged: true, sessions: [session(1, "completed")] });
  const unmerged = withStage(opened, {
    status: "completed",
    merged: false,
    sessions: [session(1, "completed")],
  });
  recordPlanChange(metrics, opened, unmerged, 1_000, 5_000);
  assert.deepEqual((await read()).plans, {});
  recordPlanChange(metrics, unmerged, done, 1_000, 61_000);
  recordPlanChange(metrics, done, { ...done, closed: true }, 1_000, 90_000);
  const { plans, seconds } = await read();
  assert.deepEqual(plans, { done: 1 });
  assert.equal(seconds, 60);
});

test("a plan closed before it was done ends as closed", async () => {
  const { metrics, read } = counts();
  recordPlanChange(metrics, opened, { ...opened, closed: true }, 1, 120_001);
  assert.deepEqual((await read()).plans, { closed: 1 });
});

test("a plan with no recorded opening time (opened before schema 2) observes no duration", async () => {
  const { metrics, read } = counts();
  recordPlanChange(metrics, opened, { ...opened, closed: true }, 0, 120_000);
  assert.deepEqual((await read()).plans, {});
});
