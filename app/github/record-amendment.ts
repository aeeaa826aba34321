import { amendRecordRef, renderAmendRecord } from "../../src/artifacts/amend-record.ts";
import type { Effect } from "../../src/orchestrator/effects.ts";
import type { EffectContext } from "./effect-context.ts";
import { writeRecordTag } from "./write-record-tag.ts";

type DispatchRun = Extract<Effect, { type: "dispatchRun" }>;

/**
 * Records a stage's amended acceptance criteria (`/loom amend`) where its run reads them with its
 * read-only token, before the run is dispatched: the check-only run, and every later session of the
 * stage (a retry, recovery, re-run or continue), for which the amendment holds too. An annotated
 * tag object on the disputed commit, whose message is the `AmendRecord` for this dispatch key, and
 * the ref `refs/loom/amend/<stage branch>` pointed at it (see `writeRecordTag`). The plan file is
 * never changed. Requests: 2 writes for a stage's first amendment, 3 for each later record (the
 * ref exists); a stage never amended: none.
 */
export async function recordAmendment(ctx: EffectContext, effect: DispatchRun): Promise<void> {
  const amendment = effect.amendment;
  if (amendment === undefined) return;
  const message = renderAmendRecord({
    version: 1,
    key: effect.key,
    stage_id: effect.stageId,
    checked_sha: amendment.checkedSha,
    amendments: amendment.amendments.map((a) => ({
      criterion_index: a.criterionIndex,
      command: a.command,
      by: a.by,
    })),
  });
  await writeRecordTag(ctx, {
    tag: `loom-amend-${effect.stageId}`,
    message,
    object: amendment.checkedSha,
    ref: amendRecordRef(effect.branch),
    what: `the amended criteria of ${effect.stageId}`,
    call: "recordAmendment",
  });
}
