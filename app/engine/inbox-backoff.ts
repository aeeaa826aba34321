/** Attempts a delivery (or parked work) gets before it is given up and dead-lettered. */
export const MAX_INBOX_ATTEMPTS = 10;
/** The first wait after a failed attempt. */
const BASE_MS = 5_000;
/** No wait is longer: a GitHub outage of an hour is still covered by 10 attempts. */
export const INBOX_BACKOFF_CAP_MS = 300_000;

/**
 * The wait after failed attempt number `attempts` (1 = the first): 5 s·2^(n-1), capped at 5 min.
 * With `MAX_INBOX_ATTEMPTS` that is 5, 10, 20, 40, 80, 160, 300, 300, 300 s: about 20 minutes in all.
 */
export function computeInboxBackoff(attempts: number): number {
  const exponent = Math.max(0, Math.min(attempts - 1, 30));
  return Math.min(INBOX_BACKOFF_CAP_MS, BASE_MS * 2 ** exponent);
}
