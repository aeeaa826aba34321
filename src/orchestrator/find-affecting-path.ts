import { globsOverlap } from "../plan/globs-overlap.ts";
import type { PlanState } from "./state.ts";

/** How many paths a stage keeps of what its merge changed (`touchedPaths`). */
export const MAX_TOUCHED_PATHS = 300;

/** Why a change affects a stage: a path it changed, or that what either side touches is not known. */
export type AffectingPath = { path: string } | { unknown: string };

/** A `files` entry without wildcards names a file or a folder: everything below it counts. */
function matchesEntry(entry: string, path: string): boolean {
  if (globsOverlap(entry, path)) return true;
  return !/[*?[{]/.test(entry) && globsOverlap(`${entry.replace(/\/+$/, "")}/**`, path);
}

/**
 * Whether a change of `changed` (paths; null: not known) affects stage `stageId`: the first
 * changed path under its `files` globs or, without them, among the paths its last merge changed
 * (`touchedPaths`). Null when it is not affected. Not knowing either side counts as affected,
 * with the reason: a stage is never left out on a guess.
 */
export function findAffectingPath(
  state: PlanState,
  stageId: string,
  changed: readonly string[] | null,
): AffectingPath | null {
  if (changed === null) return { unknown: "the paths the change touched are not known" };
  if (changed.length === 0) return null;
  const files = state.plan.stages.find((spec) => spec.id === stageId)?.files ?? [];
  if (files.length > 0) {
    const path = changed.find((candidate) => files.some((entry) => matchesEntry(entry, candidate)));
    return path === undefined ? null : { path };
  }
  const touched = state.stages[stageId]?.touchedPaths;
  if (touched === undefined)
    return { unknown: "it has no `files` and the paths its merge changed are not known" };
  const mine = new Set(touched);
  const path = changed.find((candidate) => mine.has(candidate));
  return path === undefined ? null : { path };
}

/** `` `src/b.ts` `` or the reason, for notes and the plan's check run. */
export function describeAffectingPath(affecting: AffectingPath): string {
  return "path" in affecting ? `\`${affecting.path}\`` : affecting.unknown;
}
