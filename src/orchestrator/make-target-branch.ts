import type { PlanState } from "./state.ts";

/**
 * `loom/pr-<n>/result/<plan-id>`: where a plan from a fork collects its stages, in the base
 * repository, under loom's own namespace. loom cannot push to the fork, and must never write to a
 * base-repository branch that happens to share the fork branch's name (`main`). Plan ids are file
 * stems that start `PLAN-` (or a lifecycle prefix), never `result`, so this never meets a stage
 * branch `loom/pr-<n>/<plan-id>/<stage-id>`.
 */
export function makeTargetBranch(pr: number, planId: string): string {
  return `loom/pr-${pr}/result/${planId}`;
}

/**
 * The merge point: where stage branches start and stages merge. A fork plan's result branch,
 * otherwise the pull request's own head branch.
 */
export function getMergePoint(state: PlanState): string {
  return state.fork?.target ?? state.pr.headRef;
}
