import type { PlanState } from "../orchestrator/state.ts";

/**
 * What the plan's check run says about the repository's caller workflow: nothing for a caller of
 * this App's contract; for an older or unknown pin a neutral note (served, at a cost: the pin to
 * move to); for a caller loom cannot run, the refusal with the line to paste (the check run fails).
 */
export function renderCallerNote(state: PlanState): string[] {
  const caller = state.settings.caller;
  if (caller === undefined || caller.kind === "current") return [];
  return [...caller.note.split("\n").map((line) => (line === "" ? ">" : `> ${line}`)), ""];
}

/** The plan cannot run because of its caller: its check run fails with the reason (also before approval). */
export function isCallerRefused(state: PlanState): boolean {
  return state.settings.caller?.kind === "refused" && !state.closed;
}
