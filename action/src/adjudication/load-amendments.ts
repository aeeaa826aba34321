import type { AmendRecord } from "../../../src/artifacts/amend-record.ts";
import { criterionCommand } from "../../../src/plan/criterion-command.ts";
import type { Stage } from "../../../src/plan/plan.ts";
import type { AmendedCriterion } from "../../../src/signal/signal-input.ts";
import type { RunStageInputs } from "../run-stage-inputs.ts";
import type { RunStageDeps } from "../stage/run-stage-deps.ts";

/**
 * The stage with each amended criterion in place (a later amendment of the same one wins), and what
 * each amended criterion was in the plan file.
 */
export function applyAmendments(
  stage: Stage,
  record: AmendRecord,
): { ok: true; stage: Stage; amended: AmendedCriterion[] } | { ok: false; reason: string } {
  const acceptance = [...stage.acceptance];
  const amended = new Map<number, AmendedCriterion>();
  for (const amendment of record.amendments) {
    const was = stage.acceptance[amendment.criterion_index];
    if (was === undefined)
      return {
        ok: false,
        reason: `the amendment names criterion ${amendment.criterion_index + 1}, but the stage has ${acceptance.length}`,
      };
    acceptance[amendment.criterion_index] = amendment.command;
    amended.set(amendment.criterion_index, {
      index: amendment.criterion_index,
      was: criterionCommand(was),
      command: amendment.command,
      by: amendment.by,
    });
  }
  return { ok: true, stage: { ...stage, acceptance }, amended: [...amended.values()] };
}

/** Sessions that work on the stage and run its checks after a first attempt: an amendment holds for them. */
const LATER_SESSIONS: readonly string[] = ["stage", "recovery", "continue"];

/**
 * A later session of a stage a person amended (`/loom amend`): the amended criteria hold for the
 * rest of the plan's run, as the reference keeps an amended criterion, so a retry, recovery,
 * re-run or continue session is told them and checked against them. The app records them for each
 * such dispatch under `refs/loom/amend/<branch>`, bound to this run's key; a stage never amended
 * has no record (one GET with the job's token, a 404). A record that cannot be read fails closed
 * (the session does not start and is retried); one written for another run, or naming a criterion
 * the plan no longer has (edited since), is left out with a line in the log.
 */
export async function loadAmendments(
  inputs: Pick<RunStageInputs, "kind" | "attempt">,
  deps: Pick<RunStageDeps, "readAmendRecord" | "log">,
  stage: Stage,
): Promise<{ ok: true; stage: Stage; amended: AmendedCriterion[] } | { ok: false; reason: string }> {
  if (!LATER_SESSIONS.includes(inputs.kind) || inputs.attempt <= 1 || deps.readAmendRecord === undefined)
    return { ok: true, stage, amended: [] };
  const read = await deps.readAmendRecord();
  if (!read.ok) {
    if (read.why === undefined)
      return { ok: false, reason: `the stage's amended criteria could not be read: ${read.reason}` };
    if (read.why === "other-run") deps.log("amended criteria not applied", { reason: read.reason });
    return { ok: true, stage, amended: [] };
  }
  const amended = applyAmendments(stage, read.record);
  if (!amended.ok) {
    deps.log("amended criteria not applied", { reason: amended.reason });
    return { ok: true, stage, amended: [] };
  }
  for (const a of read.record.amendments)
    deps.log("amended criterion", { criterion: a.criterion_index + 1, by: a.by, command: a.command });
  return amended;
}
