import type { Effect } from "../../src/orchestrator/effects.ts";
import type { OrchestratorEvent } from "../../src/orchestrator/events.ts";
import { countCall, readStatus, toEffectError } from "./effect-context.ts";
import type { EffectContext } from "./effect-context.ts";

type CancelRun = Extract<Effect, { type: "cancelRun" }>;

/**
 * Asks GitHub to cancel a run. 409 (the run already finished) is fine. The run's end arrives as
 * its `workflow_run` webhook (or the reconcile), so no event is returned here.
 */
export async function cancelRun(ctx: EffectContext, effect: CancelRun): Promise<OrchestratorEvent[]> {
  countCall(ctx.calls, effect.type);
  try {
    await ctx.octokit.rest.actions.cancelWorkflowRun({
      owner: ctx.owner,
      repo: ctx.repo,
      run_id: effect.runId,
    });
    ctx.log.info({ stage: effect.stageId, runId: effect.runId }, "run cancel requested");
  } catch (error) {
    const status = readStatus(error);
    if (status === 409) return [];
    if (status === 404) {
      ctx.log.warn({ stage: effect.stageId, runId: effect.runId }, "run to cancel not found");
      return [];
    }
    throw toEffectError(`cancelling run ${effect.runId}`, error);
  }
  return [];
}
