import type { Effect } from "../../src/orchestrator/effects.ts";
import type { OrchestratorEvent } from "../../src/orchestrator/events.ts";
import { countCall, EffectError, readStatus, toEffectError } from "./effect-context.ts";
import type { EffectContext } from "./effect-context.ts";

type DeleteBranch = Extract<Effect, { type: "deleteBranch" }>;

/** Deletes a stage branch (only ever `loom/…`); one that is already gone (404/422) is fine. */
export async function deleteBranch(ctx: EffectContext, effect: DeleteBranch): Promise<OrchestratorEvent[]> {
  if (!effect.branch.startsWith("loom/")) {
    throw new EffectError(`refusing to delete ${effect.branch}: not a loom stage branch`, {
      status: null,
      retryable: false,
    });
  }
  countCall(ctx.calls, effect.type);
  try {
    await ctx.octokit.rest.git.deleteRef({ owner: ctx.owner, repo: ctx.repo, ref: `heads/${effect.branch}` });
    ctx.log.info({ branch: effect.branch }, "stage branch deleted");
  } catch (error) {
    const status = readStatus(error);
    if (status !== 404 && status !== 422) throw toEffectError(`deleting branch ${effect.branch}`, error);
  }
  return [];
}
