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

/** The plan waits for someone to approve its head: no stage can start on it. */
function awaitsApproval(state: PlanState | null): boolean {
  return state !== null && !state.trusted && state.approvedSha !== state.pr.headSha && !state.closed;
}

/**
 * `syncCheckRun` for every stage whose check run would show something new (heartbeats included),
 * then one for the plan and `syncStatusComment` when the overview (statuses) changed. When the head moved, every check run
 * is re-created on the new head. While the plan waits for approval only the plan's own check run
 * is written (an unapproved head costs one check run, not one per stage: opening pull requests is
 * free for anyone); the approval then writes every stage's.
 */
export function computeSyncEffects(before: PlanState | null, after: PlanState, headMoved: boolean): Effect[] {
  const prefix = getKeyPrefix(after);
  const effects: Effect[] = [];
  const ids = [...after.order, ...(before?.order.filter((id) => !after.stages[id]) ?? [])];
  const waiting = awaitsApproval(after);
  const approved = !waiting && awaitsApproval(before);
  for (const id of ids) {
    if (waiting) break;
    if (
      !headMoved &&
      !approved &&
      describeCheckRun(before?.stages[id]) === describeCheckRun(after.stages[id])
    )
      continue;
    effects.push({ type: "syncCheckRun", key: `${prefix}:${id}:check`, stageId: id });
  }
  const commentChanged = describeComment(before) !== describeComment(after);
  if (commentChanged || headMoved)
    effects.push({ type: "syncCheckRun", key: `${prefix}:@plan:check`, stageId: null });
  if (commentChanged || headMoved)
    effects.push({ type: "syncStatusComment", key: `${prefix}:@plan:status-comment` });
  return effects;
}
