import assert from "node:assert/strict";
import { test } from "node:test";
import type { CapsInForce } from "../../src/config/caps-in-force.ts";
import { DEFAULT_SETTINGS } from "../../src/orchestrator/events.ts";
import type { Settings } from "../../src/orchestrator/events.ts";
import type { PlanState } from "../../src/orchestrator/state.ts";
import { renderPlanCheckRun } from "../../src/status/render-plan-check-run.ts";
import { renderStageCheckRun } from "../../src/status/render-stage-check-run.ts";
import { renderStatusComment } from "../../src/status/render-status-comment.ts";
import { makePlanState, makeReport, makeSession } from "./make-plan-state.ts";

const DEFAULTS: CapsInForce = {
  maxBudgetUsd: 10,
  maxTurns: 200,
  from: { maxBudgetUsd: "default", maxTurns: "default" },
};

/** A two-stage plan as the App stores it: `a` done for $0.40, `big` at its own $95 cap, waiting. */
function makeState(
  settings: Partial<Settings>,
  caps: CapsInForce = DEFAULTS,
  extra: Partial<PlanState> = {},
) {
  const state = makePlanState(
    [
      {
        id: "a",
        status: "completed",
        merged: true,
        sessions: [makeSession({ status: "completed", report: makeReport({ cost: 0.4 }) })],
      },
      { id: "big", status: "queued" },
    ],
    { settings: { ...DEFAULT_SETTINGS, ...settings }, ...extra },
  );
  state.plan.caps = caps;
  state.plan.stages[1] = {
    ...state.plan.stages[1]!,
    caps: { maxBudgetUsd: 95, maxTurns: 200, from: { maxBudgetUsd: "stage", maxTurns: "default" } },
  };
  return state;
}

const summaryOf = (state: PlanState) => renderPlanCheckRun(state).summary;

test("the plan's check run states the budget, where it comes from, the forecast and the caps of its sessions", () => {
  const summary = summaryOf(makeState({ planBudgetUsd: 100, planBudgetFrom: "default" }));
  assert.ok(
    summary.includes(
      "**Budget:** $0.40 spent of $100.00 ($100.00 loom's default) · forecast $0.80 ($0.40 spent, 1 stage ahead at $0.40 each, the plan's average per completed stage)",
    ),
    summary,
  );
  assert.ok(
    summary.includes(
      "**Session caps:** $10.00 (loom's default) and 200 turns (loom's default) a session; `big`: $95.00 (the stage) and 200 turns (loom's default)",
    ),
    summary,
  );
});

test("a budget from .github/loom.yml and what people added are both named", () => {
  const state = makeState(
    { planBudgetUsd: 40, planBudgetFrom: ".github/loom.yml" },
    { maxBudgetUsd: 5, maxTurns: 60, from: { maxBudgetUsd: ".github/loom.yml", maxTurns: "plan" } },
    { budgetRaisedUsd: 10 },
  );
  const summary = summaryOf(state);
  assert.match(
    summary,
    /\*\*Budget:\*\* \$0\.40 spent of \$50\.00 \(\$40\.00 `budget\.plan_usd` \+ \$10\.00 added with `\/loom budget`\)/,
  );
  assert.match(
    summary,
    /\*\*Session caps:\*\* \$5\.00 \(`\.github\/loom\.yml`\) and 60 turns \(the plan\) a session/,
  );
});

test("opting out is shown: no budget and no spending cap, each saying .github/loom.yml opts out", () => {
  const state = makeState(
    { planBudgetFrom: "opted out" },
    { maxTurns: 200, from: { maxBudgetUsd: "opted out", maxTurns: "default" } },
  );
  const summary = summaryOf(state);
  assert.ok(
    summary.includes(
      "**Budget:** none (`.github/loom.yml` opts out with `budget.plan_usd: none`) · $0.40 spent",
    ),
    summary,
  );
  assert.ok(
    summary.includes(
      "**Session caps:** no spending cap (`.github/loom.yml` opts out) and 200 turns (loom's default) a session",
    ),
    summary,
  );
  assert.match(
    renderStatusComment(state),
    /\*\*Budget:\*\* none · \$0\.40 spent · caps a session: no spending cap, 200 turns/,
  );
});

test("the status comment carries one short budget line; a held plan names the stage that waits", () => {
  const state = makeState({ planBudgetUsd: 100, planBudgetFrom: "default" }, DEFAULTS, {
    budgetWait: {
      stageId: "big",
      spentUsd: 0.4,
      forecastUsd: 95.4,
      budgetUsd: 90,
      stagesAhead: 1,
      basis: "session cap",
    },
  });
  const comment = renderStatusComment(state);
  assert.ok(
    comment.includes(
      "**Budget:** $0.40 spent of $100.00 · forecast $0.80 · caps a session: $10.00, 200 turns · ⏸ `big` waits for `/loom budget +<usd>`",
    ),
    comment,
  );
  assert.doesNotMatch(comment, /Session caps/, "the sources are on the plan's check run");
  const summary = summaryOf(state);
  assert.ok(
    summary.includes(
      "⏸ `big` waits: the plan's forecast is $95.40 ($0.40 spent, 1 stage ahead at their session caps until a stage completes), over its $90.00 budget; someone with write access raises the budget with `/loom budget +<usd>`",
    ),
    summary,
  );
  const stage = renderStageCheckRun(state, "big").summary;
  assert.match(stage, /\*\*Waiting for budget:\*\* the plan's forecast is \$95\.40/);
  assert.match(stage, /\*\*Session caps:\*\* \$95\.00 \(the stage\) and 200 turns \(loom's default\)/);
});

test("a plan stored before defaults existed shows its configured budget as before and no caps", () => {
  const state = makePlanState([{ id: "a", status: "queued" }], {
    settings: { ...DEFAULT_SETTINGS, planBudgetUsd: 3 },
  });
  const summary = summaryOf(state);
  assert.match(
    summary,
    /\*\*Budget:\*\* \$0\.00 spent of \$3\.00 · forecast \$0\.00 \(\$0\.00 spent, 1 stage ahead not counted/,
  );
  assert.doesNotMatch(summary, /Session caps/);
  assert.doesNotMatch(renderStageCheckRun(state, "a").summary, /Session caps/);
  const none = makePlanState([{ id: "a", status: "queued" }]);
  assert.doesNotMatch(summaryOf(none), /Budget|Session caps/, "no budget, nothing to say");
});
