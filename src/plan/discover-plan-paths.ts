/** A plan file name: `PLAN-*.md`, also with the reference CLI's `IN_PROGRESS-` / `DONE-` prefixes. */
const PLAN_FILE_NAME = /^(?:IN_PROGRESS-|DONE-)?PLAN-[^/]*\.md$/;

/** True when `path` (any directory, `/`-separated as git shows it) names a plan file. */
export function isPlanPath(path: string): boolean {
  const base = path.split("/").pop() ?? "";
  return PLAN_FILE_NAME.test(base);
}

/**
 * The plan files among `paths` (e.g. the files of a pull request), matching `**\/PLAN-*.md`
 * including `IN_PROGRESS-PLAN-*.md` and `DONE-PLAN-*.md`; in the given order, each once.
 */
export function discoverPlanPaths(paths: string[]): string[] {
  return [...new Set(paths.filter(isPlanPath))];
}
