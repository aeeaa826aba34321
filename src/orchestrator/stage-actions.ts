import { isTerminalStage } from "../stage/stage-transitions.ts";
import type { StageState } from "./state.ts";
import type { StepContext } from "./step-context.ts";
import { addNote, cancelActiveSession, findActiveSession, moveStage } from "./step-context.ts";
import { requestMerge } from "./handle-merge.ts";
import { isWaitingForMerge } from "./is-waiting-for-merge.ts";
import { rerunStage } from "./rerun-stage.ts";
import type { ActionResult } from "./action-result.ts";
import { requeueStage } from "./requeue-stage.ts";

const refuse = (reason: string): ActionResult => ({ ok: false, reason });

/** Why a person cannot change this stage any more, or null. */
function findFinality(stage: StageState): string | null {
  if (isTerminalStage(stage))
    return `\`${stage.id}\` is ${stage.merged ? "completed and merged" : stage.status} already`;
  if (stage.status === "completed") return `\`${stage.id}\` is completed and being merged`;
  return null;
}

export function skipStage(
  ctx: StepContext,
  stage: StageState,
  by: "label" | "command",
  who: string,
): ActionResult {
  const final = findFinality(stage);
  if (final) return refuse(final);
  cancelActiveSession(ctx, stage, `skipped by ${who}`);
  const note = `skipped by ${who}: dependents count it as done although its work is not merged`;
  if (!moveStage(ctx, stage, "skipped", note))
    return refuse(`\`${stage.id}\` cannot be skipped while ${stage.status}`);
  stage.skippedBy = by;
  stage.retryAt = null;
  return { ok: true, text: `skipped \`${stage.id}\`` };
}

export function blockStage(
  ctx: StepContext,
  stage: StageState,
  by: "label" | "command",
  who: string,
): ActionResult {
  const final = findFinality(stage);
  if (final) return refuse(final);
  cancelActiveSession(ctx, stage, `blocked by ${who}`);
  if (!moveStage(ctx, stage, "blocked"))
    return refuse(`\`${stage.id}\` cannot be blocked while ${stage.status}`);
  addNote(ctx, stage, `blocked by ${who}`);
  stage.blockedBy = by;
  stage.retryAt = null;
  return { ok: true, text: `blocked \`${stage.id}\`` };
}

export function unblockStage(
  ctx: StepContext,
  stage: StageState,
  by: "label" | "command",
  who: string,
): ActionResult {
  if (stage.status !== "blocked") return refuse(`\`${stage.id}\` is not blocked (it is ${stage.status})`);
  if (stage.blockedBy === "label" && by === "command") {
    return refuse(`\`${stage.id}\` is blocked by a label: remove the label to unblock it`);
  }
  stage.failures = 0;
  stage.retryAt = null;
  stage.blockedBy = null;
  requeueStage(ctx, stage, `unblocked by ${who}`);
  return { ok: true, text: `unblocked \`${stage.id}\`` };
}

/**
 * `/loom retry <stage>` (`only`: `--only`). A completed, merged stage runs again on the current
 * head (`rerunStage`); its dependents follow where its new merge changed what they build on,
 * unless `only`.
 */
export function retryStage(ctx: StepContext, stage: StageState, who: string, only = false): ActionResult {
  if (stage.status === "completed" && stage.merged && !stage.removed) {
    if (!rerunStage(ctx, stage, `retry requested by ${who}`, !only))
      return refuse(`\`${stage.id}\` cannot be re-opened`);
    return {
      ok: true,
      text: only
        ? `running \`${stage.id}\` again (its dependents stay as they are)`
        : `running \`${stage.id}\` again; its dependents follow where its new merge changes what they build on`,
    };
  }
  const final = findFinality(stage);
  if (final) return refuse(final);
  const note = `retry requested by ${who}`;
  switch (stage.status) {
    case "blocked":
      if (stage.blockedBy === "label")
        return refuse(`\`${stage.id}\` is blocked by a label: remove the label first`);
      stage.failures = 0;
      stage.retryAt = null;
      stage.blockedBy = null;
      requeueStage(ctx, stage, note);
      return { ok: true, text: `retrying \`${stage.id}\`` };
    case "completed-with-failures":
    case "needs-human-review":
      if (!requeueStage(ctx, stage, note))
        return refuse(`\`${stage.id}\` cannot run again while ${stage.status}`);
      stage.failures = 0;
      return { ok: true, text: `retrying \`${stage.id}\`` };
    case "merge-blocked":
      stage.failures = 0;
      // Its branch moved after its checks: run it again so the checks see what would be merged.
      if (stage.checkedSha === null) {
        requeueStage(ctx, stage, note);
        return { ok: true, text: `running \`${stage.id}\` again on its moved branch` };
      }
      if (moveStage(ctx, stage, "completed", note)) requestMerge(ctx, stage);
      return { ok: true, text: `merging \`${stage.id}\` again` };
    case "merge-conflict":
      if (findActiveSession(stage)) return refuse(`a merge session for \`${stage.id}\` is running already`);
      stage.failures = 0;
      stage.retryAt = null;
      addNote(ctx, stage, note);
      return { ok: true, text: `resolving the conflict of \`${stage.id}\` again` };
    case "executing":
    case "needs-handoff":
      return refuse(`\`${stage.id}\` is running: \`/loom cancel ${stage.id}\` first`);
    case "queued":
    case "waiting-for-deps":
      return refuse(`\`${stage.id}\` has not run yet (${stage.status})`);
    case "completed":
    case "skipped":
      return refuse(`\`${stage.id}\` is ${stage.status} already`);
  }
}

/**
 * Whether a check suite's re-run takes this stage up: it failed (acceptance, merge, retries used
 * up) and no person stopped it on purpose (blocked by a command, a cancel or a label).
 */
export function isRerunnable(stage: StageState): boolean {
  switch (stage.status) {
    case "completed-with-failures":
    case "merge-blocked":
      return true;
    case "needs-human-review":
      // A stage waiting for a person's merge passed: a re-run of every failed check leaves it be.
      return !isWaitingForMerge(stage);
    case "merge-conflict":
      return findActiveSession(stage) === undefined;
    case "blocked":
      return stage.blockedBy === null || stage.blockedBy === "retries" || stage.blockedBy === "merge";
    case "waiting-for-deps":
    case "queued":
    case "executing":
    case "needs-handoff":
    case "completed":
    case "skipped":
      return false;
  }
}

export function cancelStage(ctx: StepContext, stage: StageState, who: string): ActionResult {
  if (stage.status === "blocked" && stage.retryAt !== null) {
    stage.retryAt = null;
    stage.blockedBy = "command";
    addNote(ctx, stage, `automatic retry cancelled by ${who}`);
    return { ok: true, text: `cancelled the pending retry of \`${stage.id}\`` };
  }
  if (!findActiveSession(stage)) return refuse(`\`${stage.id}\` has no running session`);
  cancelActiveSession(ctx, stage, `cancelled by ${who}`);
  if (stage.status === "merge-conflict") {
    moveStage(ctx, stage, "merge-blocked", `merge session cancelled by ${who}`);
  } else if (
    moveStage(ctx, stage, "blocked", `cancelled by ${who}; \`/loom retry ${stage.id}\` to run again`)
  ) {
    stage.blockedBy = "command";
  }
  return { ok: true, text: `cancelled \`${stage.id}\`` };
}
