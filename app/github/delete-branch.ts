import { continueRecordRef } from "../../src/artifacts/continue-record.ts";
import { amendRecordRef } from "../../src/artifacts/amend-record.ts";
import type { Effect } from "../../src/orchestrator/effects.ts";
import type { OrchestratorEvent } from "../../src/orchestrator/events.ts";
import { countCall, EffectError, readStatus, toEffectError } from "./effect-context.ts";
import type { EffectContext } from "./effect-context.ts";

type DeleteBranch = Extract<Effect, { type: "deleteBranch" }>;

/**
 * Deletes a stage branch (only ever `loom/…`) and, for a continued stage, its continue record
 * (`refs/loom/continue/<branch>`: one more request), for an amended one its amend record
 * (`refs/loom/amend/<branch>`: one more); one that is already gone (404/422) is fine.
 */
export async function deleteBranch(ctx: EffectContext, effect: DeleteBranch): Promise<OrchestratorEvent[]> {
  if (!effect.branch.startsWith("loom/")) {
    throw new EffectError(`refusing to delete ${effect.branch}: not a loom stage branch`, {
      status: null,
      retryable: false,
    });
  }
  if (await deleteRef(ctx, effect, `heads/${effect.branch}`, `branch ${effect.branch}`))
    ctx.log.info({ branch: effect.branch }, "stage branch deleted");
  if (effect.continueRecord === true) {
    const ref = continueRecordRef(effect.branch);
    await deleteRef(ctx, effect, ref, `refs/${ref}`);
  }
  if (effect.amendRecord === true) {
    const ref = amendRecordRef(effect.branch);
    await deleteRef(ctx, effect, ref, `refs/${ref}`);
  }
  return [];
}

/** One `DELETE …/git/refs/<ref>`: true when deleted, false when it was already gone (404/422). */
async function deleteRef(
  ctx: EffectContext,
  effect: DeleteBranch,
  ref: string,
  what: string,
): Promise<boolean> {
  countCall(ctx.calls, effect.type);
  try {
    await ctx.octokit.rest.git.deleteRef({ owner: ctx.owner, repo: ctx.repo, ref });
    return true;
  } catch (error) {
    const status = readStatus(error);
    if (status !== 404 && status !== 422) throw toEffectError(`deleting ${what}`, error);
    return false;
  }
}
