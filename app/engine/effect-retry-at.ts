import { EffectError, MAX_EFFECT_ATTEMPTS } from "../github/effect-context.ts";
import { findWriteLimitWait } from "../github/write-limiter.ts";

/**
 * When a failed effect runs again, or null to give it up: a retryable failure waits 5 s, doubling
 * up to 5 minutes, for at most `MAX_EFFECT_ATTEMPTS` attempts; waiting for GitHub's write limit is
 * not a failure: the effect runs when the limit lets it, however often that happened before.
 */
export function effectRetryAt(error: unknown, attempts: number, now: number): number | null {
  const limited = findWriteLimitWait(error);
  if (limited !== null) return now + limited.waitMs;
  const retryable = !(error instanceof EffectError) || error.retryable;
  if (!retryable || attempts >= MAX_EFFECT_ATTEMPTS) return null;
  return now + Math.min(300_000, 5_000 * 2 ** (attempts - 1));
}
