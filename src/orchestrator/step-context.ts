import type { StageStatus } from "../stage/stage-status.ts";
import { transitionStage } from "../stage/stage-transitions.ts";
import { transitionSession } from "../stage/session-transitions.ts";
import type { Effect } from "./effects.ts";
import type { Session, PlanState, StageState } from "./state.ts";

/** The working copy one `step` changes: a private clone of the state, the effects so far, the time. */
export type StepContext = {
  state: PlanState;
  effects: Effect[];
  at: number;
};

/**
 * The prefix of every effect key: the first 12 hex digits of the plan blob SHA, the pull request
 * number and the plan id (`<blob-sha-12>-pr<n>-<plan-id>`), so neither two pull requests carrying
 * the same plan text nor two identical plans in one pull request (ids are unique within a pull
 * request) ever share a key: a run found by key belongs to exactly one plan.
 */
export function getKeyPrefix(state: PlanState): string {
  return `${state.plan.blobSha.slice(0, 12)}-pr${state.pr.number}-${state.plan.id}`;
}

/** `<blob-sha-12>-pr<n>-<plan-id>:<stage-id>:<attempt>:<what>`: the deterministic key of a stage effect. */
export function makeStageKey(state: PlanState, stageId: string, attempt: number, what: string): string {
  return `${getKeyPrefix(state)}:${stageId}:${attempt}:${what}`;
}

/**
 * `loom/pr-<n>/<plan-id>`: where a plan's stage branches live. The pull request's number keeps two
 * pull requests with the same plan file name apart, the plan id two plans of one pull request.
 * `loom prompt` passes the placeholder `<n>` when it is given no pull request number.
 */
export function makeBranchPrefix(pr: number | "<n>", planId: string): string {
  return `loom/pr-${pr}/${planId}`;
}

/** `loom/pr-<n>/<plan-id>/<stage-id>` (`makeBranchPrefix`; `loom/<plan-id>/<stage-id>` for plans of loom 0.2). */
export function makeStageBranch(state: PlanState, stageId: string): string {
  return `${state.branchPrefix ?? `loom/${state.plan.id}`}/${stageId}`;
}

export function addNote(ctx: StepContext, stage: StageState, text: string): void {
  stage.notes.push({ at: ctx.at, text });
}

export function reject(ctx: StepContext, stageId: string | null, reason: string): void {
  ctx.state.rejected.push({ at: ctx.at, stageId, reason });
}

/**
 * Moves a stage through the transition table (`reopen`: a person re-opens a completed, merged
 * stage). A refused move is recorded in `state.rejected` and leaves the stage as it was; the
 * return value says which happened.
 */
export function moveStage(
  ctx: StepContext,
  stage: StageState,
  to: StageStatus,
  note?: string,
  options: { reopen?: boolean } = {},
): boolean {
  const result = transitionStage(stage.status, to, { merged: stage.merged, ...options });
  if (!result.ok) {
    reject(ctx, stage.id, result.reason);
    return false;
  }
  // A wait for a person's merge ends when the stage moves on, whoever moved it.
  // So does a wait for a person's decision on a disputed criterion.
  if (to !== stage.status) {
    delete stage.mergeWaitSince;
    delete stage.dispute;
  }
  stage.status = to;
  if (note !== undefined) addNote(ctx, stage, note);
  return true;
}

/** Ends a session the same way: through its table, refusals recorded. */
export function endSession(
  ctx: StepContext,
  stageId: string,
  session: Session,
  to: Session["status"],
): boolean {
  const result = transitionSession(session.status, to);
  if (!result.ok) {
    reject(ctx, stageId, `attempt ${session.attempt}: ${result.reason}`);
    return false;
  }
  session.status = to;
  if (to !== "running") session.finishedAt = ctx.at;
  return true;
}

export function emit(ctx: StepContext, effect: Effect): void {
  ctx.effects.push(effect);
}

/** The session with this attempt number, if any. */
export function findSession(stage: StageState, attempt: number): Session | undefined {
  return stage.sessions.find((session) => session.attempt === attempt);
}

/** The stage's session that still holds a runner, if any. */
export function findActiveSession(stage: StageState): Session | undefined {
  return stage.sessions.find((session) => session.status === "spawning" || session.status === "running");
}

/** Asks the app to cancel a stage's active session and marks it cancelled. */
export function cancelActiveSession(ctx: StepContext, stage: StageState, why: string): void {
  const session = findActiveSession(stage);
  if (!session) return;
  if (session.runId !== null) {
    emit(ctx, {
      type: "cancelRun",
      key: makeStageKey(ctx.state, stage.id, session.attempt, "cancel"),
      stageId: stage.id,
      runId: session.runId,
    });
  }
  endSession(ctx, stage.id, session, "cancelled");
  session.detail = why;
}
