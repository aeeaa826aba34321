import { derivePlanId } from "../../src/plan/derive-plan-id.ts";
import { stripLifecyclePrefix } from "../../src/plan/lifecycle-path.ts";
import type { PlanRecord } from "../store/store.ts";

/**
 * Each plan file of the pull request with the path loom knows its plan by: a file renamed
 * `IN_PROGRESS-`/`DONE-` (by loom, or by a person as the reference CLI does) keeps the stored
 * plan's path, so it is the same plan (same id, branches, keys, check runs), never a new one.
 */
export function identifyPlanFiles(files: string[], known: PlanRecord[]): { file: string; path: string }[] {
  const seen = new Set<string>();
  const entries: { file: string; path: string }[] = [];
  for (const file of files) {
    const bare = stripLifecyclePrefix(file);
    const path =
      known.find((record) => stripLifecyclePrefix(record.key.planPath) === bare)?.key.planPath ?? file;
    if (seen.has(path)) continue;
    seen.add(path);
    entries.push({ file, path });
  }
  return entries;
}

/** Another plan of the pull request (in the file list, or stored and still running) is there besides `path`. */
export function sharedPull(path: string, paths: string[], known: PlanRecord[]): boolean {
  return (
    paths.some((other) => other !== path) ||
    known.some((record) => record.active && record.key.planPath !== path)
  );
}

/**
 * The other plan file of this pull request with `path`'s plan id (`a/PLAN-x.md`, `b/PLAN-x.md`),
 * unless `path`'s own plan already runs: the first one keeps running, a newcomer is refused.
 */
export function findIdClash(path: string, paths: string[], known: PlanRecord[]): string | null {
  if (known.some((record) => record.active && record.key.planPath === path)) return null;
  const id = derivePlanId(path);
  return paths.find((other) => other !== path && derivePlanId(other) === id) ?? null;
}
