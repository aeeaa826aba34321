import { continueRecordRef, renderContinueRecord } from "../../src/artifacts/continue-record.ts";
import type { Effect } from "../../src/orchestrator/effects.ts";
import type { EffectContext } from "./effect-context.ts";
import { writeRecordTag } from "./write-record-tag.ts";

type DispatchRun = Extract<Effect, { type: "dispatchRun" }>;

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
  const message = renderContinueRecord({
    version: 1,
    key: effect.key,
    stage_id: effect.stageId,
    by: continuation.by,
    from_attempt: continuation.fromAttempt,
    instructions: continuation.instructions,
  });
  await writeRecordTag(ctx, {
    tag: `loom-continue-${effect.stageId}`,
    message,
    object: ctx.state.stages[effect.stageId]?.checkedSha ?? ctx.state.pr.headSha,
    ref: continueRecordRef(effect.branch),
    what: `the instructions of ${effect.stageId}`,
    call: "recordContinuation",
  });
}
