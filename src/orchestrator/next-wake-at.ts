import type { PlanState } from "./state.ts";
import { heartbeatDeadline } from "./heartbeat-deadline.ts";
import { findActiveSession } from "./step-context.ts";
import { runnerWaitWakeAt } from "./runner-wait.ts";

/**
 * When the app should next send a `tick` for this plan: the earliest due backoff retry or
 * heartbeat deadline of a live session, the notice or cancel time of a run still waiting for a
 * runner, or null when nothing is waiting on time.
 */
export function nextWakeAt(state: PlanState): number | null {
  if (state.closed) return null;
  let earliest: number | null = null;
  const consider = (at: number) => {
    if (earliest === null || at < earliest) earliest = at;
  };
  for (const id of state.order) {
    const stage = state.stages[id];
    if (!stage) continue;
    if (stage.retryAt !== null) consider(stage.retryAt);
    const session = findActiveSession(stage);
    const deadline = session ? heartbeatDeadline(session, state.settings) : null;
    if (deadline !== null) consider(deadline);
    const runnerWait = session ? runnerWaitWakeAt(session, state.settings) : null;
    if (runnerWait !== null) consider(runnerWait);
  }
  return earliest;
}
