/**
 * What loom makes of a repository's caller workflow, kept in the plan's settings from the plan's start
 * (and after a push to the default branch changed it):
 * - `current`: it pins a release speaking this App's contract; served as it is.
 * - `older`: it pins a release of an older contract this App still serves, by creating each stage
 *   branch before its first run; `note` says which pin saves that and why.
 * - `unknown`: loom cannot tell which release it pins (a branch, a fork's own commit, a copy):
 *   served the way every stage workflow from 0.3 on accepts (the branch created first); `note` says so.
 * - `refused`: a run could not succeed (no caller, unreadable, inputs the dispatch would be refused
 *   for, a contract this App cannot serve, grants the run would fail at startup for): nothing is
 *   dispatched; `reason` is one line, `note` the instruction with the line to paste.
 */
export type CallerVerdict =
  | { kind: "current"; release: string }
  | { kind: "older"; release: string; note: string }
  | { kind: "unknown"; note: string }
  | { kind: "refused"; reason: string; note: string };

/**
 * Whether loom creates the stage branch at the merge point before a stage's first run. Plans started
 * before loom read the caller (no verdict) are served as they were: the run's publish job creates it.
 */
export function createsBranchFirst(verdict: CallerVerdict | undefined): boolean {
  return verdict?.kind === "older" || verdict?.kind === "unknown";
}

/** Why nothing may be dispatched because of the caller, or null. */
export function findCallerBlocker(verdict: CallerVerdict | undefined): string | null {
  return verdict?.kind === "refused" ? verdict.reason : null;
}
