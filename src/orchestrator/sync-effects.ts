import { getCheckSlot } from "../status/check-run-external-id.ts";
import { getStageCheckState, isStuck } from "../status/check-run-state.ts";
import { isPlanDone } from "./clean-up-branches.ts";
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
    state.settings.caller ?? null,
    state.affected ?? null,
  ]);
}

/** The plan waits for someone to approve its head: no stage can start on it. */
function awaitsApproval(state: PlanState | null): boolean {
  return state !== null && !state.trusted && state.approvedSha !== state.pr.headSha && !state.closed;
}

/**
 * Whether a head move alone rewrites a stage's check run: while the stage needs a person, so the
 * pull request's checks list shows it at once. A running stage's run moves to the head at its next
 * write (its run found or started, a heartbeat, its end: see the App's `syncCheckRun`), not on
 * every merge: with stages running side by side each merge re-created all of them (two writes
 * each), so check-run writes grew with merges × running stages. A stage waiting its turn or
 * finished keeps its check run where it is (reachable from the plan's check run and the status
 * comment).
 */
function rewrittenOnHeadMove(stage: StageState | undefined): boolean {
  return stage !== undefined && isStuck(stage);
}

/**
 * The plan's next check-run write moves it to another head (the old run completed, a new one
 * created: two writes): its recorded run is on another head than the pull request's, or a stage
 * passed and its merge, about to move the head, is on its way. Such a write waits, like a stage's
 * `follow`, so merges landing together (and the news and dispatches between them) move it once.
 */
function planRunMoves(state: PlanState): boolean {
  const recorded = state.checkRuns?.[getCheckSlot(null)];
  if (recorded !== undefined && recorded.headSha !== state.pr.headSha) return true;
  return state.order.some((id) => {
    const stage = state.stages[id];
    return stage !== undefined && stage.status === "completed" && !stage.merged && !stage.removed;
  });
}

/** The stage is the one the plan's budget holds back: a person raises the budget or it never starts. */
function waitsForBudget(state: PlanState | null, id: string): boolean {
  return state?.budgetWait?.stageId === id;
}

/**
 * A stage that waits its turn (for its dependencies, a free slot, or a retry's backoff) and never
 * had a check run gets none yet: the plan's check run and the status comment list it, and its own
 * run appears once it starts or needs a person (the budget holds it back, say). A run created for
 * a waiting stage on the head of the moment had to be completed as superseded and created again on
 * a later head when the stage started (two writes per non-root stage for nothing), and filled the
 * pull request's checks list with queued runs. Nor does one when the pull request closes before it started: a run created
 * only to say "cancelled" shows nothing the plan's does not. Plans from before loom recorded its
 * check runs (`checkRuns` absent) keep writing them, since whether one exists is unknown.
 */
function waitsWithoutCheckRun(state: PlanState, id: string): boolean {
  const stage = state.stages[id];
  return (
    stage !== undefined &&
    state.checkRuns !== undefined &&
    state.checkRuns[id] === undefined &&
    (state.closed || (getStageCheckState(stage).status === "queued" && !waitsForBudget(state, id)))
  );
}

/**
 * `syncCheckRun` for every stage whose check run would show something new (heartbeats included),
 * but not for one waiting without a run (`waitsWithoutCheckRun`); then one for the plan and
 * `syncStatusComment` when the overview (statuses) changed. When the head moved, the plan's check
 * run and those of stages that need a person (`rewrittenOnHeadMove`) are re-created on the new head
 * (marked `follow` when nothing else of the stage changed: the App coalesces those; the plan's is
 * marked `follow` whenever its write will move it, `planRunMoves`). When the pull
 * request closes, every run a stage has is written (unfinished ones end cancelled). While the plan
 * waits for approval only the plan's own check run is written (an unapproved head costs one check
 * run, not one per stage: opening pull requests is free for anyone); the approval then writes
 * every stage's that has something to show.
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
    const follows = headMoved && rewrittenOnHeadMove(after.stages[id]);
    if (!changed && !follows) continue;
    if (waitsWithoutCheckRun(after, id)) continue;
    effects.push({
      type: "syncCheckRun",
      key: `${prefix}:${id}:check`,
      stageId: id,
      ...(changed ? {} : { follow: true as const }),
    });
  }
  const commentChanged = describeComment(before) !== describeComment(after);
  if (commentChanged || headMoved)
    effects.push({
      type: "syncCheckRun",
      key: `${prefix}:@plan:check`,
      stageId: null,
      // The plan's last write (every stage done) is not held: nothing is left to coalesce it with.
      ...((headMoved || planRunMoves(after)) && !isPlanDone(after) ? { follow: true as const } : {}),
    });
  if (commentChanged || headMoved)
    effects.push({ type: "syncStatusComment", key: `${prefix}:@plan:status-comment` });
  return effects;
}
