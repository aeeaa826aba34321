import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { isSessionCheckDue } from "../../src/orchestrator/is-session-check-due.ts";
import { applyEvents } from "./apply-events.ts";
import type { EngineDeps } from "./engine-deps.ts";
import { reconcilePlan } from "./reconcile-plans.ts";
import { readStoredPlan } from "./stored-plan.ts";

const TIMER_LEASE_MS = 60_000;

/**
 * Due timers (backoff over, heartbeat check due) become a `tick` for their plan. When that tick
 * would judge a live session (its heartbeat deadline or runner wait has come), the plan's runs and
 * heartbeats are read first, as the reconcile does: a session is judged on what GitHub says now.
 * When they cannot be read, nothing is judged and the timer comes back once its lease ends.
 */
export async function runDueTimers(deps: EngineDeps, limit: number): Promise<number> {
  const due = await deps.store.claimDueTimers(deps.workerId, deps.now(), limit, TIMER_LEASE_MS);
  for (const timer of due) {
    const record = await deps.store.getPlan(timer.planKey);
    if (record !== null && isSessionCheckDue(readStoredPlan(record).state, deps.now())) {
      try {
        await reconcilePlan(deps, record);
      } catch (error) {
        deps.log.warn(
          { err: error, plan: record.planKey },
          "could not read the plan's sessions at their deadline; judged once GitHub answers",
        );
        continue;
      }
    } else {
      await applyEvents(deps, { key: timer.planKey, events: [{ type: "tick", at: deps.now() }] });
    }
    await deps.store.deleteTimer(timer);
    await yieldToEventLoop(); // let waiting webhooks in (see processDeliveries)
  }
  return due.length;
}
