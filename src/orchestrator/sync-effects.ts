import type { Effect } from "./effects.ts";
import type { PlanState, StageState } from "./state.ts";
import { getKeyPrefix } from "./step-context.ts";

/** What a stage's check run shows; a change here means its check run needs an update. */
function describeCheckRun(stage: StageState | undefined): string {
  if (!stage) return "";
  const session = stage.sessions.at(-1);
  return JSON.stringify([
    stage.status,
    stage.merged,
    stage.attempt,
    stage.retryAt,
    stage.removed,
    stage.notes.length,
    session,
  ]);
}

/** What the sticky status comment shows: statuses, not heartbeats. */
function describeComment(state: PlanState | null): string {
  if (!state) return "";
  const stages = state.order.map((id) => {
    const stage = state.stages[id];
    return stage ? [id, stage.status, stage.merged, stage.attempt, stage.removed, stage.retryAt] : [id];
  });
  return JSON.stringify([
    state.hold,
    state.closed,
    state.approvedSha === state.pr.headSha,
    state.plan.name,
    stages,
    state.budgetWait ?? null,
    state.budgetRaisedUsd ?? 0,
  ]);
}

/**
 * `syncCheckRun` for every stage whose check run would show something new (heartbeats included),
 * then one for the plan and `syncStatusComment` when the overview (statuses) changed. When the head moved, every check run
 * is re-created on the new head.
 */
export function computeSyncEffects(before: PlanState | null, after: PlanState, headMoved: boolean): Effect[] {
  const prefix = getKeyPrefix(after);
  const effects: Effect[] = [];
  const ids = [...after.order, ...(before?.order.filter((id) => !after.stages[id]) ?? [])];
  for (const id of ids) {
    if (!headMoved && describeCheckRun(before?.stages[id]) === describeCheckRun(after.stages[id])) continue;
    effects.push({ type: "syncCheckRun", key: `${prefix}:${id}:check`, stageId: id });
  }
  const commentChanged = describeComment(before) !== describeComment(after);
  if (commentChanged || headMoved)
    effects.push({ type: "syncCheckRun", key: `${prefix}:@plan:check`, stageId: null });
  if (commentChanged || headMoved)
    effects.push({ type: "syncStatusComment", key: `${prefix}:@plan:status-comment` });
  return effects;
}
