import type { StageState } from "./state.ts";
import type { StepContext } from "./step-context.ts";
import { addNote, emit, endSession, findActiveSession, makeStageKey, moveStage } from "./step-context.ts";
import { heartbeatDeadline } from "./heartbeat-deadline.ts";
import { scheduleRetry } from "./schedule-retry.ts";
import { checkRunnerWait, isWaitingForRunner } from "./runner-wait.ts";

/**
 * How long a cancelled run may take to stop and upload its handoff: GitHub sends SIGINT, SIGTERM
 * 7.5 s later and kills the job 2.5 s after that; the uploads need a few seconds more. A recovery
 * dispatched sooner would start without the handoff, however short the configured backoff.
 */
export const CANCEL_GRACE_MS = 20_000;

/**
 * Time passed: due backoff retries go back in line, sessions silent for longer than
 * `heartbeatTimeoutMs` are cancelled, marked `hung` and retried as recovery sessions (they count
 * as a failed attempt), and runs no runner has picked up are noticed, then cancelled and retried once.
 */
export function handleTick(ctx: StepContext): void {
  const { state } = ctx;
  if (state.closed) return;
  for (const id of state.order) {
    const stage = state.stages[id];
    if (!stage) continue;
    checkHeartbeat(ctx, stage);
    if (stage.retryAt !== null && stage.retryAt <= ctx.at) releaseRetry(ctx, stage);
  }
}

function releaseRetry(ctx: StepContext, stage: StageState): void {
  stage.retryAt = null;
  if (stage.removed) {
    addNote(ctx, stage, "retry dropped: the stage was removed from the plan file");
    return;
  }
  if (stage.status === "blocked") moveStage(ctx, stage, "queued", `retry ${stage.failures} due`);
  else addNote(ctx, stage, `retry ${stage.failures} due`);
}

function checkHeartbeat(ctx: StepContext, stage: StageState): void {
  const session = findActiveSession(stage);
  if (!session) return;
  if (isWaitingForRunner(session)) {
    checkRunnerWait(ctx, stage, session);
    return;
  }
  const deadline = heartbeatDeadline(session, ctx.state.settings);
  // Queued, or within its deadline: `nextWakeAt` tells the app when to look again.
  if (deadline === null || ctx.at < deadline) return;
  if (session.runId !== null) {
    emit(ctx, {
      type: "cancelRun",
      key: makeStageKey(ctx.state, stage.id, session.attempt, "cancel"),
      stageId: stage.id,
      runId: session.runId,
    });
  }
  const silent = Math.round((ctx.at - session.lastSeenAt) / 1000);
  endSession(ctx, stage.id, session, "hung");
  session.outcome = "hung";
  session.detail = `no heartbeat for ${silent} s`;
  scheduleRetry(
    ctx,
    stage,
    `attempt ${session.attempt} hung (no heartbeat for ${silent} s)`,
    session.runId === null ? 0 : CANCEL_GRACE_MS,
  );
}
