import type { SessionStatus } from "./stage-status.ts";
import type { TransitionResult } from "./stage-transitions.ts";

/** `spawning → running → completed | crashed | context-exhausted | hung | cancelled`. */
export const SESSION_TRANSITIONS: Readonly<Record<SessionStatus, readonly SessionStatus[]>> = {
  // A run can end before loom saw it start (a missed webhook): every end is allowed from spawning.
  spawning: ["running", "completed", "crashed", "context-exhausted", "hung", "cancelled"],
  running: ["completed", "crashed", "context-exhausted", "hung", "cancelled"],
  completed: [],
  crashed: [],
  "context-exhausted": [],
  hung: [],
  cancelled: [],
};

/** Sessions that still hold a runner (count against `maxParallel`). */
export function isActiveSession(session: { status: SessionStatus }): boolean {
  return session.status === "spawning" || session.status === "running";
}

/** Whether a session may move from `from` to `to`; a refusal is a value, never a throw. */
export function transitionSession(from: SessionStatus, to: SessionStatus): TransitionResult {
  if (from === to) return { ok: true };
  if (SESSION_TRANSITIONS[from].includes(to)) return { ok: true };
  return { ok: false, reason: `a session cannot go from ${from} to ${to}` };
}
