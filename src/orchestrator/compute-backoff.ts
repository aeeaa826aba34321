import type { Settings } from "./events.ts";

/**
 * The wait before retry number `failures` (1 = first retry): base·2^(failures-1), capped.
 * With the defaults: 30 s, 60 s, 120 s, 240 s, 300 s, 300 s, …
 */
export function computeBackoff(settings: Settings, failures: number): number {
  const exponent = Math.max(0, Math.min(failures - 1, 30));
  return Math.min(settings.backoffCapMs, settings.backoffBaseMs * 2 ** exponent);
}
