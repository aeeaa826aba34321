import type { StageState } from "./state.ts";
import type { StepContext } from "./step-context.ts";
import { addNote, emit, makeStageKey, moveStage } from "./step-context.ts";
import { computeBackoff } from "./compute-backoff.ts";

/**
 * A crash, hang or timeout: wait 30 s·2^(n-1) (capped) and try again as a recovery session, or
 * give up after `maxAttempts` failures; never sooner than `minDelayMs`. Stage sessions wait as `blocked` with `retryAt` set;
 * merge sessions wait in `merge-conflict` and end in `merge-blocked`.
 */
export function scheduleRetry(ctx: StepContext, stage: StageState, why: string, minDelayMs = 0): void {
  const { settings } = ctx.state;
  stage.failures++;
  const isMerge = stage.status === "merge-conflict";
  if (stage.failures >= settings.maxAttempts) {
    const text = `${why}; gave up after ${stage.failures} failed attempts, \`/loom retry ${stage.id}\` to try again`;
    if (isMerge) moveStage(ctx, stage, "merge-blocked", text);
    else if (moveStage(ctx, stage, "blocked", text)) stage.blockedBy = "retries";
    stage.retryAt = null;
    return;
  }
  if (!isMerge && !moveStage(ctx, stage, "blocked")) return;
  const retryAt = ctx.at + Math.max(minDelayMs, computeBackoff(settings, stage.failures));
  stage.retryAt = retryAt;
  stage.blockedBy = null;
  addNote(
    ctx,
    stage,
    `${why}; retry ${stage.failures} of ${settings.maxAttempts - 1} in ${(retryAt - ctx.at) / 1000} s`,
  );
  emit(ctx, {
    type: "setTimer",
    key: makeStageKey(ctx.state, stage.id, stage.sessions.length, "retry"),
    at: retryAt,
  });
}
