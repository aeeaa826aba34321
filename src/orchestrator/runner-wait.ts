import { DEFAULT_RUNNER_NOTICE_MS, DEFAULT_RUNNER_TIMEOUT_MS } from "./events.ts";
import type { Settings } from "./events.ts";
import type { Session, StageState } from "./state.ts";
import type { StepContext } from "./step-context.ts";
import { addNote, emit, endSession, makeStageKey, moveStage } from "./step-context.ts";
import { scheduleRetry } from "./schedule-retry.ts";

function limits(settings: Settings): { noticeMs: number; timeoutMs: number } {
  return {
    noticeMs: settings.runnerNoticeMs ?? DEFAULT_RUNNER_NOTICE_MS,
    timeoutMs: settings.runnerTimeoutMs ?? DEFAULT_RUNNER_TIMEOUT_MS,
  };
}

/** A run GitHub accepted (loom knows its id) that no runner has started yet. */
export function isWaitingForRunner(session: Session): boolean {
  return session.status === "spawning" && session.runId !== null;
}

/** When the next tick matters to a run waiting for a runner: its notice, then its cancel time. */
export function runnerWaitWakeAt(session: Session, settings: Settings): number | null {
  if (!isWaitingForRunner(session)) return null;
  const { noticeMs, timeoutMs } = limits(settings);
  return (
    session.dispatchedAt + (session.runnerWaitNoticed === true ? timeoutMs : Math.min(noticeMs, timeoutMs))
  );
}

function minutes(ms: number): string {
  const m = Math.round(ms / 60_000);
  return `${m} min`;
}

/**
 * A dispatched run no runner has started: past the notice time its check run says so; past the
 * cancel time it is cancelled and the stage dispatched once more as a fresh session; when that
 * one is not picked up either, the stage waits for a person (`/loom retry`), with the reason.
 */
export function checkRunnerWait(ctx: StepContext, stage: StageState, session: Session): void {
  const { noticeMs, timeoutMs } = limits(ctx.state.settings);
  const waited = ctx.at - session.dispatchedAt;
  if (waited >= Math.min(noticeMs, timeoutMs) && session.runnerWaitNoticed !== true) {
    session.runnerWaitNoticed = true;
    addNote(
      ctx,
      stage,
      `waiting for a runner: no runner has picked up run #${String(session.runId)} for ${minutes(waited)}; check that a runner matching the stage workflow's runs-on is online`,
    );
  }
  if (waited < timeoutMs || session.runId === null) return;
  emit(ctx, {
    type: "cancelRun",
    key: makeStageKey(ctx.state, stage.id, session.attempt, "cancel"),
    stageId: stage.id,
    runId: session.runId,
  });
  endSession(ctx, stage.id, session, "cancelled");
  session.outcome = "cancelled";
  session.neverStarted = true;
  session.detail = `no runner picked up the run in ${minutes(waited)}`;
  // Retried once already since the last person's `/loom retry` (which resets the failures)?
  const before = stage.sessions.at(-2);
  if (before?.neverStarted === true && stage.failures > 0) {
    const text = `no runner picked up attempts ${before.attempt} and ${session.attempt} (${minutes(timeoutMs)} each): check the runners for the stage workflow's runs-on, then \`/loom retry ${stage.id}\``;
    stage.retryAt = null;
    if (moveStage(ctx, stage, "blocked", text)) stage.blockedBy = "retries";
    return;
  }
  scheduleRetry(
    ctx,
    stage,
    `attempt ${session.attempt} was never picked up by a runner (${minutes(waited)})`,
  );
}
