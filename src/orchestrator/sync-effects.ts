import { getStageCheckState, isStuck } from "../status/check-run-state.ts";
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
 * Whether a stage's check run follows the pull request's head: while it runs and while it needs a
 * person, so the pull request's checks list shows it. A stage waiting its turn or finished keeps
 * its check run where it is (reachable from the plan's check run and the status comment) until it
 * changes: re-creating every stage on every merge made check-run writes grow with stages × merges.
 */
function followsHead(stage: StageState | undefined): boolean {
  return stage !== undefined && (getStageCheckState(stage).status === "in_progress" || isStuck(stage));
}

/**
 * `syncCheckRun` for every stage whose check run would show something new (heartbeats included),
 * then one for the plan and `syncStatusComment` when the overview (statuses) changed. When the head
 * moved, the plan's check run and those of stages that follow the head (`followsHead`) are
 * re-created on the new head (marked `follow` when nothing else of the stage changed: the App
 * coalesces those). When the pull request closes, every stage's is written (unfinished
 * ones end cancelled). While the plan waits for approval only the plan's own check run is written
 * (an unapproved head costs one check run, not one per stage: opening pull requests is free for
 * anyone); the approval then writes every stage's.
 */
export function computeSyncEffects(before: PlanState | null, after: PlanState, headMoved: boolean): Effect[] {
  const prefix = getKeyPrefix(after);
  const effects: Effect[] = [];
  const ids = [...after.order, ...(before?.order.filter((id) => !after.stages[id]) ?? [])];
  const waiting = awaitsApproval(after);
  const approved = !waiting && awaitsApproval(before);
  const closing = after.closed && before?.closed === false;
  for (const id of ids) {
    if (waiting) break;
    const changed =
      approved || closing || describeCheckRun(before?.stages[id]) !== describeCheckRun(after.stages[id]);
    const follows = headMoved && followsHead(after.stages[id]);
    if (!changed && !follows) continue;
    effects.push({
      type: "syncCheckRun",
      key: `${prefix}:${id}:check`,
      stageId: id,
      ...(changed ? {} : { follow: true as const }),
    });
  }
  const commentChanged = describeComment(before) !== describeComment(after);
  if (commentChanged || headMoved)
    effects.push({ type: "syncCheckRun", key: `${prefix}:@plan:check`, stageId: null });
  if (commentChanged || headMoved)
    effects.push({ type: "syncStatusComment", key: `${prefix}:@plan:status-comment` });
  return effects;
}
