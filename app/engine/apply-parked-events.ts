import { applyEvents } from "./apply-events.ts";
import type { EngineDeps } from "./engine-deps.ts";
import { ParkedEvents } from "./park-events.ts";

/** Parked events could not be committed again (they stay in the inbox for their next attempt). */
export class ParkedEventsConflictError extends Error {
  override name = "ParkedEventsConflictError";
}

/**
 * Applies events parked in the inbox (`parkEvents`). Losing the compare-and-swap again throws, so
 * the inbox keeps them for a later attempt (with backoff) or gives them up visibly; a plan that is
 * gone meanwhile has nothing left to apply them to.
 */
export async function applyParkedEvents(deps: EngineDeps, payload: unknown): Promise<void> {
  const parked = readParkedEvents(payload);
  const result = await applyEvents(deps, { ...parked, onConflict: "report" });
  if (result.ok) return;
  if (result.reason === "no-plan") {
    deps.log.warn({ plan: parked.key }, "parked events for a plan loom no longer has; nothing to apply");
    return;
  }
  throw new ParkedEventsConflictError(
    `the plan kept changing while ${parked.events.length} parked event(s) were applied`,
  );
}

export function readParkedEvents(payload: unknown): ParkedEvents {
  // The envelope is checked; the events and effects are the reducer's own values, stored by loom.
  return ParkedEvents.parse(payload) as unknown as ParkedEvents;
}
