import assert from "node:assert/strict";
import { test } from "node:test";
import { buildGraph } from "../../src/graph/build-graph.ts";
import {
  countStagesAhead,
  forecastSpend,
  getAverageStageCost,
} from "../../src/orchestrator/forecast-spend.ts";
import { costReport } from "./cost-report.ts";
import { makeSession, makePlanState } from "../status/make-plan-state.ts";

const cost = costReport;

// a → b → d, a → c → d, d → e: the chain from b is b, d, e.
const stages = [
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

test("the forecast of a stage is the spend so far plus the plan's average stage cost for each stage left on its longest chain", () => {
  const state = makePlanState(stages);
  const graph = buildGraph(state.order.map((id) => ({ id, dependencies: state.stages[id]!.dependencies })));
  assert.ok(Math.abs((getAverageStageCost(state) ?? 0) - 0.3) < 1e-9, "a cost 0.2 over two sessions, c 0.4");
  assert.equal(countStagesAhead(graph, state, "b"), 3, "b, d and e");
  assert.equal(countStagesAhead(graph, state, "c"), 2, "c is done: d and e");
  assert.ok(Math.abs(forecastSpend(graph, state, "b") - (0.6 + 0.9)) < 1e-9);
});

test("before any stage completed the forecast is the spend so far: the first stages always start", () => {
  const state = makePlanState([
    { id: "a", status: "queued" },
    { id: "b", dependencies: ["a"] },
  ]);
  const graph = buildGraph(state.order.map((id) => ({ id, dependencies: state.stages[id]!.dependencies })));
  assert.equal(getAverageStageCost(state), null);
  assert.equal(forecastSpend(graph, state, "a"), 0);
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
  const graph = buildGraph(state.order.map((id) => ({ id, dependencies: state.stages[id]!.dependencies })));
  assert.equal(getAverageStageCost(state), 1);
  assert.equal(forecastSpend(graph, state, "c"), 6 + 1);
});
