import { heartbeatDeadline } from "./heartbeat-deadline.ts";
import { runnerWaitWakeAt } from "./runner-wait.ts";
import type { PlanState } from "./state.ts";
import { findActiveSession } from "./step-context.ts";

/**
 * Whether a `tick` at `now` would judge a live session: its heartbeat deadline has come (the tick
 * would take it for hung) or the notice or cancel time of its run still waiting for a runner. The
 * app reads such a plan's runs and heartbeats before that tick, so the judgement rests on what
 * GitHub says now, never on silence loom did not check.
 */
export function isSessionCheckDue(state: PlanState, now: number): boolean {
  if (state.closed) return false;
  return state.order.some((id) => {
    const stage = state.stages[id];
    const session = stage ? findActiveSession(stage) : undefined;
    if (!session) return false;
    const deadline = heartbeatDeadline(session, state.settings);
    const runnerWait = runnerWaitWakeAt(session, state.settings);
    return (deadline !== null && deadline <= now) || (runnerWait !== null && runnerWait <= now);
  });
}
