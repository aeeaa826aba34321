import type { Graph } from "../graph/build-graph.ts";
import type { PlanState, StageState } from "./state.ts";

/** What the stage has cost so far: finished sessions' reported cost, a running one's last heartbeat. */
export function getStageSpend(stage: StageState): number {
  return stage.sessions.reduce(
    (sum, s) => sum + (s.report?.usage.costUsd ?? s.lastHeartbeat?.costUsd ?? 0),
    0,
  );
}

/** What the plan has cost so far, over every stage and session. */
export function getPlanSpend(state: PlanState): number {
  return Object.values(state.stages).reduce((sum, stage) => sum + getStageSpend(stage), 0);
}

/** The plan's budget: `budget.plan_usd` plus what people added; null when the plan has none. */
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

function isDone(stage: StageState | undefined): boolean {
  return stage === undefined || stage.merged || stage.status === "skipped" || stage.removed === true;
}

/** The stages not yet done on the longest chain from `stageId` to the end of the plan (`stageId` included). */
export function countStagesAhead(graph: Graph, state: PlanState, stageId: string): number {
  const memo = new Map<string, number>();
  const walk = (id: string): number => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    memo.set(id, 0); // a cycle cannot happen in a valid plan; this only bounds the walk
    const own = isDone(state.stages[id]) ? 0 : 1;
    const next = Math.max(0, ...(graph.dependents.get(id) ?? []).map(walk));
    memo.set(id, own + next);
    return own + next;
  };
  return walk(stageId);
}

/**
 * The plan's spend once `stageId` and the stages still ahead of it on its longest chain have run,
 * at the plan's average stage cost so far (only the spend before any stage completed).
 */
export function forecastSpend(graph: Graph, state: PlanState, stageId: string): number {
  const average = getAverageStageCost(state) ?? 0;
  return getPlanSpend(state) + average * countStagesAhead(graph, state, stageId);
}
