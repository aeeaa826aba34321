import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { applyEvents } from "./apply-events.ts";
import type { EngineDeps } from "./engine-deps.ts";

const TIMER_LEASE_MS = 60_000;

/** Due timers (backoff over, heartbeat check due) become a `tick` for their plan. */
export async function runDueTimers(deps: EngineDeps, limit: number): Promise<number> {
  const due = await deps.store.claimDueTimers(deps.workerId, deps.now(), limit, TIMER_LEASE_MS);
  for (const timer of due) {
    await applyEvents(deps, { key: timer.planKey, events: [{ type: "tick", at: deps.now() }] });
    await deps.store.deleteTimer(timer);
    await yieldToEventLoop(); // let waiting webhooks in (see processDeliveries)
  }
  return due.length;
}
