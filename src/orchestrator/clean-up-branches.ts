import type { Effect } from "./effects.ts";
import type { PlanState } from "./state.ts";
import { getKeyPrefix, makeStageBranch } from "./step-context.ts";

/** True when every stage still in the plan is done: completed and merged, or skipped. */
export function isPlanDone(state: PlanState): boolean {
  return state.order.every((id) => {
    const stage = state.stages[id];
    return (
      stage === undefined ||
      stage.removed ||
      (stage.status === "completed" && stage.merged) ||
      stage.status === "skipped"
    );
  });
}

/**
 * `deleteBranch` for every stage branch loom created (and the `/loom continue` record of a continued
 * stage), once, at the step where the plan becomes done, when the repository asked for it
 * (`delete_branches`). Their work is merged into the pull
 * request's branch by then; a closed, unfinished plan keeps its branches for people to look at.
 */
export function computeCleanupEffects(before: PlanState | null, after: PlanState): Effect[] {
  if (after.settings.deleteBranches !== true || after.closed) return [];
  if (!isPlanDone(after) || (before !== null && isPlanDone(before))) return [];
  const prefix = getKeyPrefix(after);
  return Object.values(after.stages)
    .filter((stage) => stage.sessions.length > 0)
    .map((stage) => {
      // A stage continued after the plan was done once has its branch again: a key of its own.
      const continued = stage.sessions.some((s) => s.kind === "continue");
      // A stage whose criterion a person amended has loom's record of the amendments.
      const amended = (stage.amendments?.length ?? 0) > 0;
      return {
        type: "deleteBranch" as const,
        key: `${prefix}:${stage.id}:delete-branch${continued ? `:${stage.sessions.length}` : ""}`,
        branch: makeStageBranch(after, stage.id),
        ...(continued ? { continueRecord: true as const } : {}),
        ...(amended ? { amendRecord: true as const } : {}),
      };
    });
}
