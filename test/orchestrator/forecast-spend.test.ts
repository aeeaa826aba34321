import assert from "node:assert/strict";
import { test } from "node:test";
import type { CapsInForce } from "../../src/config/caps-in-force.ts";
import {
  forecastPlanSpend,
  getAverageStageCost,
  getPlanSpend,
  getStageSpend,
} from "../../src/orchestrator/forecast-spend.ts";
import type { PlanState } from "../../src/orchestrator/state.ts";
import { costReport } from "./cost-report.ts";
import { makeHeartbeat, makePlanState, makeSession } from "../status/make-plan-state.ts";

const cost = costReport;

function near(actual: number, expected: number, what: string): void {
  assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual} ≠ ${expected}`);
}

const capped = (usd: number, from: CapsInForce["from"]["maxBudgetUsd"] = "default"): CapsInForce => ({
  maxBudgetUsd: usd,
  maxTurns: 200,
  from: { maxBudgetUsd: from, maxTurns: "default" },
});

/** `state` with the App's caps: `planCap` for every stage, `stageCaps` where a stage sets its own. */
function withCaps(
  state: PlanState,
  planCap: CapsInForce,
  stageCaps: Record<string, CapsInForce> = {},
): PlanState {
  return {
    ...state,
    plan: {
      ...state.plan,
      caps: planCap,
      stages: state.plan.stages.map((spec) => ({
        ...spec,
        ...(stageCaps[spec.id] === undefined ? {} : { caps: stageCaps[spec.id] }),
      })),
    },
  };
}

// a → b → d, a → c → d, d → e.
const diamond = [
  {
    id: "a",
    status: "completed" as const,
    merged: true,
    sessions: [
      makeSession({ status: "completed", report: cost(0.1) }),
      makeSession({ status: "crashed", report: cost(0.1) }),
    ],
  },
  { id: "b", dependencies: ["a"], status: "queued" as const },
  {
    id: "c",
    dependencies: ["a"],
    status: "completed" as const,
    merged: true,
    sessions: [makeSession({ status: "completed", report: cost(0.4) })],
  },
  { id: "d", dependencies: ["b", "c"] },
  { id: "e", dependencies: ["d"] },
];

test("once stages completed, the forecast is the spend plus the plan's average stage cost for every stage not done", () => {
  const state = makePlanState(diamond);
  near(getAverageStageCost(state) ?? 0, 0.3, "a cost 0.2 over two sessions, c 0.4");
  const forecast = forecastPlanSpend(withCaps(state, capped(10)));
  assert.equal(forecast.basis, "average", "the plan's own history wins over the caps");
  assert.equal(forecast.stagesAhead, 3, "b, d and e");
  near(forecast.forecastUsd, 0.6 + 0.9, "the forecast");
});

test("every stage not done counts, not only one chain: ten parallel stages forecast ten sessions", () => {
  const stages = Array.from({ length: 10 }, (_, i) => ({ id: `s${i}`, status: "queued" as const }));
  const forecast = forecastPlanSpend(withCaps(makePlanState(stages), capped(10)));
  assert.deepEqual(forecast, {
    spentUsd: 0,
    stagesAhead: 10,
    aheadUsd: 100,
    basis: "session cap",
    forecastUsd: 100,
  });
});

test("before any stage completed, each stage ahead is forecast at its own session cap", () => {
  const state = withCaps(
    makePlanState([
      { id: "a", status: "queued" },
      { id: "b", status: "queued" },
      { id: "c", dependencies: ["a", "b"] },
    ]),
    capped(10),
    { b: capped(95, "stage") },
  );
  assert.equal(getAverageStageCost(state), null);
  assert.deepEqual(forecastPlanSpend(state), {
    spentUsd: 0,
    stagesAhead: 3,
    aheadUsd: 115,
    basis: "session cap",
    forecastUsd: 115,
  });
});

test("budget.stage_estimate_usd replaces the caps until a stage completes, then the average replaces it", () => {
  const fresh = makePlanState(
    [
      { id: "a", status: "queued" },
      { id: "b", dependencies: ["a"] },
    ],
    {
      settings: { ...makePlanState([]).settings, stageEstimateUsd: 2.5 },
    },
  );
  const before = forecastPlanSpend(withCaps(fresh, capped(10)));
  assert.deepEqual([before.basis, before.forecastUsd], ["stage estimate", 5]);
  const after = forecastPlanSpend(
    withCaps(
      {
        ...fresh,
        stages: {
          ...fresh.stages,
          a: {
            ...fresh.stages["a"]!,
            status: "completed",
            merged: true,
            sessions: [makeSession({ status: "completed", report: cost(0.5) })],
          },
        },
      },
      capped(10),
    ),
  );
  assert.deepEqual([after.basis, after.stagesAhead, after.forecastUsd], ["average", 1, 1]);
});

test("with the caps opted out and no estimate the stages ahead cannot be forecast: only the spend counts", () => {
  const optedOut: CapsInForce = { maxTurns: 200, from: { maxBudgetUsd: "opted out", maxTurns: "default" } };
  const forecast = forecastPlanSpend(withCaps(makePlanState([{ id: "a", status: "queued" }]), optedOut));
  assert.deepEqual(forecast, { spentUsd: 0, stagesAhead: 1, aheadUsd: 0, basis: "none", forecastUsd: 0 });
});

test("a plan stored before caps existed forecasts only its spend before a stage completed, as it did", () => {
  const forecast = forecastPlanSpend(
    makePlanState([
      { id: "a", status: "queued" },
      { id: "b", dependencies: ["a"] },
    ]),
  );
  assert.deepEqual([forecast.basis, forecast.forecastUsd], ["none", 0]);
});

test("a completed stage whose merge is pending, a skipped and a removed stage are not ahead; a failed one is", () => {
  const state = withCaps(
    makePlanState([
      { id: "done", status: "completed", sessions: [makeSession({ status: "completed", report: cost(1) })] },
      { id: "skip", status: "skipped" },
      { id: "gone", removed: true },
      {
        id: "failed",
        status: "completed-with-failures",
        sessions: [makeSession({ status: "completed", report: cost(3) })],
      },
      { id: "next", dependencies: ["done"] },
    ]),
    capped(10),
  );
  const forecast = forecastPlanSpend(state);
  assert.equal(forecast.stagesAhead, 2, "failed (it runs again) and next");
  near(forecast.forecastUsd, 4 + 2 * 1, "spent 4; the average over completed stages is 1");
});

test("the average stage cost counts only completed stages: a running or failed stage's spend is spend, not an average", () => {
  const state = makePlanState([
    {
      id: "a",
      status: "completed",
      merged: true,
      sessions: [makeSession({ status: "completed", report: cost(1) })],
    },
    { id: "b", status: "executing", sessions: [makeSession({ status: "crashed", report: cost(5) })] },
    { id: "c", dependencies: ["a"] },
  ]);
  assert.equal(getAverageStageCost(state), 1);
  assert.equal(forecastPlanSpend(state).forecastUsd, 6 + 2 * 1, "b runs again and c: two stages ahead");
});

// What a session cost comes from its final report only; every "$ spent" figure sums these.
const costCases: { name: string; session: Parameters<typeof makeSession>[0]; usd: number }[] = [
  {
    name: "a finished session whose report says $1.20 cost $1.20, though its last heartbeat said $0",
    session: { status: "completed", report: cost(1.2), lastHeartbeat: makeHeartbeat({ costUsd: 0 }) },
    usd: 1.2,
  },
  {
    name: "a finished session whose report says $1.20 cost $1.20, though an earlier heartbeat said $0.50",
    session: { status: "crashed", report: cost(1.2), lastHeartbeat: makeHeartbeat({ costUsd: 0.5 }) },
    usd: 1.2,
  },
  {
    name: "a session whose report says $0 cost $0, whatever a heartbeat said",
    session: { status: "cancelled", report: cost(0), lastHeartbeat: makeHeartbeat({ costUsd: 0.5 }) },
    usd: 0,
  },
  {
    name: "a crashed session that left no report counts $0, not its heartbeat's figure",
    session: { status: "crashed", lastHeartbeat: makeHeartbeat({ costUsd: 0.5 }) },
    usd: 0,
  },
  {
    name: "a running session counts $0 until it reports (its stage is in the forecast instead)",
    session: { status: "running", lastHeartbeat: makeHeartbeat({ costUsd: 0.5 }) },
    usd: 0,
  },
];

for (const c of costCases) {
  test(c.name, () => {
    const state = makePlanState([{ id: "a", status: "executing", sessions: [makeSession(c.session)] }]);
    near(getStageSpend(state.stages["a"]!), c.usd, "the stage's spend");
    near(getPlanSpend(state), c.usd, "the plan's spend");
  });
}
