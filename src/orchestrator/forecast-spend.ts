import type { ForecastBasis } from "./forecast-basis.ts";
import type { PlanState, Session, StageState } from "./state.ts";

/**
 * What a session cost: the figure of its final report (Claude Code's own total), and nothing
 * else. A heartbeat never counts: a running session's heartbeats carry 0 until Claude Code's
 * result, and its stage is in the forecast at its estimate instead. A session that left no report
 * (its runner was lost) counts 0: loom does not know what it cost and does not guess.
 */
export function getSessionCost(session: Session): number {
  return session.report?.usage.costUsd ?? 0;
}

/** What the stage has cost so far: its sessions' reported costs, retries and merge sessions included. */
export function getStageSpend(stage: StageState): number {
  return stage.sessions.reduce((sum, session) => sum + getSessionCost(session), 0);
}

/** What the plan has cost so far, over every stage and session. */
export function getPlanSpend(state: PlanState): number {
  return Object.values(state.stages).reduce((sum, stage) => sum + getStageSpend(stage), 0);
}

/** The plan's budget: `budget.plan_usd` (or loom's default) plus what people added; null when the plan has none. */
export function getPlanBudget(state: PlanState): number | null {
  const base = state.settings.planBudgetUsd;
  return base === undefined ? null : base + (state.budgetRaisedUsd ?? 0);
}

/**
 * What a stage of this plan has cost on average: the mean over the stages that completed (their
 * sessions summed, retries included), or null before any did. The plan's own history is the best
 * predictor of its other stages (same repository, same model, same kind of task).
 */
export function getAverageStageCost(state: PlanState): number | null {
  const done = Object.values(state.stages).filter((s) => s.status === "completed" && s.sessions.length > 0);
  if (done.length === 0) return null;
  return done.reduce((sum, stage) => sum + getStageSpend(stage), 0) / done.length;
}

export type Forecast = {
  spentUsd: number;
  /** Stages that will still run sessions: not completed, merged, skipped or removed. */
  stagesAhead: number;
  /** Their forecast cost, on `basis`. */
  aheadUsd: number;
  basis: ForecastBasis;
  forecastUsd: number;
};

/** A stage that will run no more stage sessions: completed (its merge may be pending), merged, skipped or removed. */
function isSpendDone(stage: StageState): boolean {
  return stage.merged || stage.status === "completed" || stage.status === "skipped" || stage.removed;
}

/**
 * The plan's spend once every stage not yet done has run: the spend so far plus each such stage
 * at the forecast's basis. Every stage ahead counts, not only one chain: a first wave of many
 * parallel stages is as much a commitment as a long chain.
 */
export function forecastPlanSpend(state: PlanState): Forecast {
  const spentUsd = getPlanSpend(state);
  const ahead = state.order.flatMap((id) => {
    const stage = state.stages[id];
    return stage === undefined || isSpendDone(stage) ? [] : [id];
  });
  const { basis, aheadUsd } = estimateAhead(state, ahead);
  return { spentUsd, stagesAhead: ahead.length, aheadUsd, basis, forecastUsd: spentUsd + aheadUsd };
}

/** The forecast of `ahead` (stage ids) at the plan's basis (see `FORECAST_BASES`). */
export function estimateAhead(
  state: PlanState,
  ahead: readonly string[],
): { basis: ForecastBasis; aheadUsd: number } {
  const average = getAverageStageCost(state);
  if (average !== null) return { basis: "average", aheadUsd: average * ahead.length };
  const estimate = state.settings.stageEstimateUsd;
  if (estimate !== undefined) return { basis: "stage estimate", aheadUsd: estimate * ahead.length };
  const specs = new Map(state.plan.stages.map((spec) => [spec.id, spec]));
  let capped = 0;
  let aheadUsd = 0;
  for (const id of ahead) {
    const cap = (specs.get(id)?.caps ?? state.plan.caps)?.maxBudgetUsd;
    if (cap === undefined) continue;
    capped++;
    aheadUsd += cap;
  }
  return capped > 0 ? { basis: "session cap", aheadUsd } : { basis: "none", aheadUsd: 0 };
}

/**
 * What running `ids` again is forecast to cost: each stage at what it cost so far where it
 * reported a cost (its own history is the best predictor of itself), the others at the plan's
 * basis (`estimateAhead`).
 */
export function forecastRerun(state: PlanState, ids: readonly string[]): { usd: number; basis: string } {
  let usd = 0;
  const unknown: string[] = [];
  for (const id of ids) {
    const stage = state.stages[id];
    const spent = stage === undefined ? 0 : getStageSpend(stage);
    if (spent > 0) usd += spent;
    else unknown.push(id);
  }
  if (unknown.length === 0) return { usd, basis: "each stage at what it cost before" };
  const rest = estimateAhead(state, unknown);
  const basis =
    unknown.length === ids.length
      ? `each stage at the plan's ${rest.basis}`
      : `stages at what they cost before, ${unknown.length} at the plan's ${rest.basis}`;
  return { usd: usd + rest.aheadUsd, basis };
}
