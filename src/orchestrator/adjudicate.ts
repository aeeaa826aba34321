import { findCallerProblem } from "./find-caller-problem.ts";
import { MAX_AMENDED_COMMAND } from "../artifacts/amend-record.ts";
import { redactSecrets } from "../redact/redact-secrets.ts";
import { isWaitingForAdjudication } from "./is-waiting-for-adjudication.ts";
import type { ActionResult } from "./action-result.ts";
import { requeueStage } from "./requeue-stage.ts";
import type { Dispute, Session, StageState } from "./state.ts";
import type { StepContext } from "./step-context.ts";
import { addNote, moveStage } from "./step-context.ts";

/** The reference's default cap on amendments per stage (`adjudication.max_amendments_per_stage`). */
export const DEFAULT_MAX_AMENDMENTS_PER_STAGE = 3;

const refuse = (reason: string): ActionResult => ({ ok: false, reason });

/** How many `/loom amend` one stage of the plan takes in this run. */
export function getMaxAmendments(ctx: StepContext): number {
  return ctx.state.plan.maxAmendmentsPerStage ?? DEFAULT_MAX_AMENDMENTS_PER_STAGE;
}

/**
 * A session's run failed the criterion it disputed: the stage waits for a person in
 * `needs-human-review` (the reference's executing → NeedsAdjudication, whose adjudicator here is
 * someone with write access), with the commit its checks ran on (`checkedSha`). Its dependents
 * wait with it.
 */
export function holdForAdjudication(
  ctx: StepContext,
  stage: StageState,
  session: Session,
  dispute: Omit<Dispute, "since" | "attempt">,
): void {
  const n = dispute.criterionIndex + 1;
  const note = `attempt ${session.attempt}: the session disputes acceptance criterion ${n} (\`${dispute.criterion}\`): waiting for a person: \`/loom amend ${stage.id} ${n} <command>\` or \`/loom reject ${stage.id}\``;
  if (moveStage(ctx, stage, "needs-human-review", note))
    stage.dispute = { ...dispute, since: ctx.at, attempt: session.attempt };
}

/** What a `/loom amend` comment says: the criterion (1-based), its new command, when it was written. */
export type AmendRequest = { criterion?: number; command?: string; writtenAt?: number };

/**
 * `/loom amend <stage> <n> <command>`: criterion n of the disputed stage is `command` for this run
 * of the plan (the plan file is not changed); the stage's checks run again, with no model, on
 * exactly the commit the dispute was about, and it merges as usual when they pass. Refused, with
 * the reason, when the stage waits for no decision, when the comment was written before the wait
 * began, when n names no criterion, or past `adjudication.max_amendments_per_stage`.
 */
export function amendCriterion(
  ctx: StepContext,
  stage: StageState,
  who: string,
  request: AmendRequest,
): ActionResult {
  const dispute = stage.dispute;
  if (!isWaitingForAdjudication(stage) || dispute === undefined)
    return refuse(`\`${stage.id}\` is ${stage.status}: no disputed criterion waits for a decision`);
  const caller = findCallerProblem(
    ctx.state.settings.caller,
    "check",
    "cannot re-run a stage's checks with an amended criterion",
  );
  if (caller !== null) return refuse(caller);
  const checked = stage.checkedSha;
  if (!checked)
    return refuse(
      `loom does not know which commit the checks of \`${stage.id}\` ran on: \`/loom retry ${stage.id}\` runs it again`,
    );
  if (request.writtenAt !== undefined && request.writtenAt <= dispute.since)
    return refuse(
      `\`${stage.id}\` started waiting for a decision after this comment was written: read the dispute on its check run, then amend again`,
    );
  const disputedN = dispute.criterionIndex + 1;
  const count = ctx.state.plan.stages.find((spec) => spec.id === stage.id)?.acceptanceCount ?? disputedN;
  const n = request.criterion;
  if (n === undefined || !Number.isInteger(n) || n < 1 || n > Math.max(count, disputedN))
    return refuse(
      `\`${stage.id}\` has no acceptance criterion ${n ?? "(none named)"}: the disputed one is ${disputedN} (\`/loom amend ${stage.id} ${disputedN} <command>\`)`,
    );
  const command = redactSecrets(request.command?.trim() ?? "", []);
  if (command === "") return refuse(`\`amend\` needs the criterion's new command after its number`);
  if (command.length > MAX_AMENDED_COMMAND)
    return refuse(`the new command is longer than ${MAX_AMENDED_COMMAND} characters`);
  const used = stage.amendments?.length ?? 0;
  const max = getMaxAmendments(ctx);
  if (used >= max)
    return refuse(
      `\`${stage.id}\` has had ${used} of the ${max} amendments its plan allows (\`adjudication.max_amendments_per_stage\`): \`/loom reject ${stage.id}\`, \`/loom retry ${stage.id}\` or \`/loom skip ${stage.id}\``,
    );
  const index = n - 1;
  // The plan's text of a criterion other than the disputed one is not kept in the state.
  const was = index === dispute.criterionIndex ? dispute.criterion : `criterion ${n} of the plan`;
  const by = who.replace(/^@/, "");
  stage.amendments = [
    ...(stage.amendments ?? []),
    { criterionIndex: index, was, command, by, at: ctx.at, sha: checked },
  ];
  stage.amendCheck = true;
  stage.failures = 0;
  stage.retryAt = null;
  const note = `criterion ${n} amended by ${who} for this run: \`${command}\` (was ${index === dispute.criterionIndex ? `\`${was}\`` : was}); the checks of ${checked.slice(0, 7)} run again with it, no model`;
  if (!requeueStage(ctx, stage, note)) {
    stage.amendments = stage.amendments.slice(0, -1);
    delete stage.amendCheck;
    return refuse(`\`${stage.id}\` cannot run its checks again while ${stage.status}`);
  }
  return { ok: true, text: `amending criterion ${n} of \`${stage.id}\`` };
}

/**
 * `/loom reject <stage>` (or the Reject button): the person rejects the session's dispute and the
 * criterion stands. As the reference's `human-review --reject`, the stage is blocked with the
 * reason: `/loom continue <stage> <instructions>` or `/loom retry <stage>` runs it again.
 */
export function rejectDispute(ctx: StepContext, stage: StageState, who: string): ActionResult {
  const dispute = stage.dispute;
  if (!isWaitingForAdjudication(stage) || dispute === undefined)
    return refuse(`\`${stage.id}\` is ${stage.status}: no disputed criterion waits for a decision`);
  const n = dispute.criterionIndex + 1;
  const note = `dispute of criterion ${n} rejected by ${who}: the criterion stands; \`/loom continue ${stage.id} <instructions>\` or \`/loom retry ${stage.id}\` runs it again`;
  if (!moveStage(ctx, stage, "blocked", note))
    return refuse(`\`${stage.id}\` cannot be blocked while ${stage.status}`);
  stage.blockedBy = "command";
  return { ok: true, text: `rejected the dispute of \`${stage.id}\`` };
}

/** A check-only run ended with its checks run: the amendment's check is done (passed or not). */
export function closeAmendCheck(ctx: StepContext, stage: StageState, session: Session): void {
  if (session.kind !== "check") return;
  delete stage.amendCheck;
  addNote(ctx, stage, `attempt ${session.attempt}: checks run again with the amended criteria`);
}
