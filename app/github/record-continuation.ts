import { z } from "zod";
import { continueRecordRef, renderContinueRecord } from "../../src/artifacts/continue-record.ts";
import type { Effect } from "../../src/orchestrator/effects.ts";
import { countCall, readStatus, toEffectError } from "./effect-context.ts";
import type { EffectContext } from "./effect-context.ts";

type DispatchRun = Extract<Effect, { type: "dispatchRun" }>;

const CreatedTag = z.object({ sha: z.string().regex(/^[0-9a-f]{40,64}$/) });

/**
 * Records a continue session's instructions where its run job reads them with its read-only token,
 * before the run is dispatched (the dispatch inputs stay those every caller workflow declares): an
 * annotated tag object whose message is the `ContinueRecord` for this dispatch key, on the stage's
 * checked commit (else the pull request's head), and the ref `refs/loom/continue/<stage branch>`
 * pointed at it. Outside branches and tags: no workflow runs and no push webhook fires for it.
 *
 * Requests: 2 writes (tag, ref) for a stage's first continue; 3 for a later one (the ref exists:
 * its creation is refused, then it is moved with `force`). Idempotent: a claim after a failed one
 * writes a new tag and points the ref at it; a 5xx or network failure is retryable (nothing is
 * dispatched before the record is in place).
 */
export async function recordContinuation(ctx: EffectContext, effect: DispatchRun): Promise<void> {
  const continuation = effect.continuation;
  if (continuation === undefined) return;
  const { owner, repo } = ctx;
  const message = renderContinueRecord({
    version: 1,
    key: effect.key,
    stage_id: effect.stageId,
    by: continuation.by,
    from_attempt: continuation.fromAttempt,
    instructions: continuation.instructions,
  });
  const object = ctx.state.stages[effect.stageId]?.checkedSha ?? ctx.state.pr.headSha;
  let tagSha: string;
  countCall(ctx.calls, "recordContinuation");
  try {
    const { data } = await ctx.octokit.rest.git.createTag({
      owner,
      repo,
      tag: `loom-continue-${effect.stageId}`,
      message,
      object,
      type: "commit",
    });
    tagSha = CreatedTag.parse(data).sha;
  } catch (error) {
    throw toEffectError(`recording the instructions of ${effect.stageId}`, error);
  }
  const ref = continueRecordRef(effect.branch);
  countCall(ctx.calls, "recordContinuation");
  try {
    await ctx.octokit.rest.git.createRef({ owner, repo, ref: `refs/${ref}`, sha: tagSha });
    return;
  } catch (error) {
    if (readStatus(error) !== 422)
      throw toEffectError(`recording the instructions of ${effect.stageId}`, error);
  }
  countCall(ctx.calls, "recordContinuation");
  try {
    await ctx.octokit.rest.git.updateRef({ owner, repo, ref, sha: tagSha, force: true });
  } catch (error) {
    throw toEffectError(`recording the instructions of ${effect.stageId}`, error);
  }
}
