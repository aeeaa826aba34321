import type { Effect } from "../../src/orchestrator/effects.ts";
import type { OrchestratorEvent } from "../../src/orchestrator/events.ts";
import { cancelRun } from "./cancel-run.ts";
import { createBranch } from "./create-branch.ts";
import { deleteBranch } from "./delete-branch.ts";
import { dispatchRun } from "./dispatch-run.ts";
import type { EffectContext } from "./effect-context.ts";
import { ensureLabel } from "./ensure-label.ts";
import { mergeBranch } from "./merge-branch.ts";
import { renamePlanFile } from "./rename-plan-file.ts";
import { reply } from "./reply.ts";
import { syncCheckRun } from "./sync-check-run.ts";
import { syncStatusComment } from "./sync-status-comment.ts";
import { syncTarget } from "./sync-target.ts";

/**
 * Carries out one effect on GitHub and returns the events to feed back into the reducer
 * (`run.dispatched`, `merge.finished`, …). Expected outcomes (a conflict, a refused dispatch) are
 * events; a failure whose outcome is unknown throws `EffectError` (`retryable` says whether to run
 * the same effect again later: every effect looks before it creates, so that is safe).
 */
export async function executeEffect(ctx: EffectContext, effect: Effect): Promise<OrchestratorEvent[]> {
  switch (effect.type) {
    case "createBranch":
      return createBranch(ctx, effect);
    case "dispatchRun":
      return dispatchRun(ctx, effect);
    case "cancelRun":
      return cancelRun(ctx, effect);
    case "mergeBranch":
      return mergeBranch(ctx, effect);
    case "syncCheckRun":
      return syncCheckRun(ctx, effect);
    case "syncStatusComment":
      return syncStatusComment(ctx, effect);
    case "reply":
      return reply(ctx, effect);
    case "deleteBranch":
      return deleteBranch(ctx, effect);
    case "ensureLabel":
      return ensureLabel(ctx, effect);
    case "renamePlanFile":
      return renamePlanFile(ctx, effect);
    case "syncTarget":
      return syncTarget(ctx, effect);
    case "setTimer":
      // Timers live in the store; nothing happens on GitHub.
      return [];
  }
}
