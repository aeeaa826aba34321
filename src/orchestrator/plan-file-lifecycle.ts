import type { Effect } from "./effects.ts";
import type { PlanState } from "./state.ts";
import { isPlanDone } from "./clean-up-branches.ts";
import { getKeyPrefix } from "./step-context.ts";
import { withLifecyclePrefix } from "../plan/lifecycle-path.ts";
import type { PlanFilePrefix } from "../plan/lifecycle-path.ts";

/**
 * Whether loom renames this plan's file (`rename_plans`). Never for a fork plan: its plan file
 * lives in the fork, which loom cannot write; renaming it on the result branch alone would rename
 * the author's plan behind their back once they merge the result.
 */
export function renamesPlanFile(state: PlanState): boolean {
  return state.settings.renamePlans === true && state.fork === undefined;
}

/** The prefix the plan file should carry now: `DONE-` when every stage is done, `IN_PROGRESS-` once one started. */
export function wantedPlanFilePrefix(state: PlanState): PlanFilePrefix | null {
  if (isPlanDone(state)) return "DONE-";
  const started = Object.values(state.stages).some((stage) => stage.sessions.length > 0);
  return started ? "IN_PROGRESS-" : null;
}

/**
 * `renamePlanFile` when the plan file's name should change (`rename_plans`): once as the first
 * stage starts, once as the plan is done. Keyed by the prefix, so each rename happens once; the
 * app renames from wherever the file is when it runs.
 */
export function computePlanFileEffects(state: PlanState): Effect[] {
  if (!renamesPlanFile(state) || state.closed || state.planFileProblem !== undefined) return [];
  const wanted = wantedPlanFilePrefix(state);
  if (wanted === null) return [];
  const current = state.planFile ?? state.plan.path;
  if (current === withLifecyclePrefix(current, wanted)) return [];
  return [{ type: "renamePlanFile", key: `${getKeyPrefix(state)}:@plan:rename:${wanted}`, prefix: wanted }];
}
