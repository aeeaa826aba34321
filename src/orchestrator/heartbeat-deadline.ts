import type { Settings } from "./events.ts";
import type { Session } from "./state.ts";

/**
 * When a silent session counts as hung: its last sign of life plus the heartbeat timeout. A run
 * GitHub has queued but not started has none: waiting for a runner (busy runners, concurrency
 * limits) sends no heartbeats and is not a stall; GitHub itself cancels a job queued for 24 h,
 * which ends the run. Without live heartbeats (GHES), a run that was found has none either: its
 * job's own guards end it. A dispatch whose run was never found keeps its deadline, so a lost
 * dispatch is retried.
 */
export function heartbeatDeadline(session: Session, settings: Settings): number | null {
  if (session.runId !== null && settings.liveHeartbeats === false) return null;
  if (session.status === "spawning" && session.runId !== null) return null;
  return session.lastSeenAt + settings.heartbeatTimeoutMs;
}
