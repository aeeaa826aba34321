import type { StageStatus } from "../stage/stage-status.ts";
import { getDependencies } from "./build-graph.ts";
import type { Graph } from "./build-graph.ts";

/** What readiness needs to know about a stage. `StageState` from the orchestrator fits. */
export type StageReadiness = {
  status: StageStatus;
  merged: boolean;
  /** Who skipped the stage on purpose; null when nobody did. */
  skippedBy?: "label" | "command" | null;
};

/** Statuses of a stage that has not started yet and waits for its turn. */
const WAITING: readonly StageStatus[] = ["waiting-for-deps", "queued"];

/**
 * True when a dependency no longer holds its dependents back: it is completed and merged into
 * the merge point, or a person skipped it on purpose. A stage skipped any other way does not
 * count (its work is not in the merge point).
 */
export function isDependencySatisfied(dependency: StageReadiness | undefined): boolean {
  if (!dependency) return false;
  if (dependency.status === "completed") return dependency.merged;
  if (dependency.status === "skipped")
    return dependency.skippedBy === "label" || dependency.skippedBy === "command";
  return false;
}

/** True when `id` is waiting and every dependency is satisfied (see `isDependencySatisfied`). */
export function isReady(
  graph: Graph,
  states: Readonly<Record<string, StageReadiness | undefined>>,
  id: string,
): boolean {
  const state = states[id];
  if (!state || !WAITING.includes(state.status)) return false;
  return getDependencies(graph, id).every((dep) => isDependencySatisfied(states[dep]));
}

/**
 * The stages that may start now, in plan order: waiting (`waiting-for-deps` or `queued`) with
 * every dependency completed and merged, or skipped on purpose by a person. Stages without a
 * state are not ready.
 */
export function readyStages(
  graph: Graph,
  states: Readonly<Record<string, StageReadiness | undefined>>,
): string[] {
  return graph.ids.filter((id) => isReady(graph, states, id));
}
