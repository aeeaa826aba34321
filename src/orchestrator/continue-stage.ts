import { findCallerProblem } from "./find-caller-problem.ts";
import { MAX_CONTINUE_INSTRUCTIONS } from "../commands/parse-command.ts";
import { redactSecrets } from "../redact/redact-secrets.ts";
import type { Session, StageState } from "./state.ts";
import type { StepContext } from "./step-context.ts";
import { addNote, findActiveSession, moveStage } from "./step-context.ts";
import type { ActionResult } from "./action-result.ts";
import { requeueStage } from "./requeue-stage.ts";

const refuse = (reason: string): ActionResult => ({ ok: false, reason });

/** Characters of the instructions a note on the stage quotes. */
const NOTE_QUOTE_MAX = 200;

/**
 * The newest session of the stage whose Claude Code session ran (its run started), not a merge
 * session's nor a check run's (`/loom amend`: no session): the one a `/loom continue` resumes.
 * Undefined when none ran.
 */
export function findContinueSource(stage: StageState): Session | undefined {
  return stage.sessions.findLast(
    (session) =>
      session.kind !== "merge" &&
      session.kind !== "check" &&
      session.runId !== null &&
      session.startedAt !== null,
  );
}

/** Why the stage cannot be continued now, or null when it can. */
function findContinueBlocker(stage: StageState): string | null {
  const id = `\`${stage.id}\``;
  if (findActiveSession(stage))
    return `${id} has a session running: \`/loom cancel ${stage.id}\` first, then continue it`;
  switch (stage.status) {
    case "completed":
      return stage.merged ? null : `${id} is being merged: continue it once it is merged`;
    case "executing":
    case "needs-handoff":
      return `${id} is running: \`/loom cancel ${stage.id}\` first, then continue it`;
    case "queued":
    case "waiting-for-deps":
      return `${id} is waiting to run (${stage.status}): continue it once it has run`;
    case "skipped":
      return `${id} is skipped: nothing of it is left to continue`;
    case "merge-conflict":
      return `${id} waits for its merge conflict to be resolved: continue it once that is done`;
    case "blocked":
      return stage.blockedBy === "label" ? `${id} is blocked by a label: remove the label first` : null;
    // `needs-human-review`: waiting for a person's merge (`auto_merge: false`); it waits again after.
    case "completed-with-failures":
    case "merge-blocked":
    case "needs-human-review":
      return null;
  }
}

/**
 * `/loom continue <stage> <instructions>`: a new attempt that resumes the stage's last Claude Code
 * session with the person's instructions, then runs its checks and merges like any attempt. A
 * completed and merged stage opens again (`merged` is cleared): its dependents that have not
 * started wait until it is merged again; those running or done are left as they are. The
 * instructions are redacted here, so no copy of them (state, record, check run, prompt) holds a
 * token a person pasted by mistake.
 */
export function continueStage(
  ctx: StepContext,
  stage: StageState,
  who: string,
  written: string | undefined,
): ActionResult {
  const instructions = redactSecrets(written?.trim() ?? "", []).slice(0, MAX_CONTINUE_INSTRUCTIONS);
  if (instructions === "") return refuse("`continue` needs instructions for the session");
  const blocker =
    findCallerProblem(ctx.state.settings.caller, "continue", "cannot resume a session") ??
    findContinueBlocker(stage);
  if (blocker !== null) return refuse(blocker);
  const source = findContinueSource(stage);
  if (source?.runId == null) return refuse(`\`${stage.id}\` has no session that ran, so none to continue`);
  const by = who.replace(/^@/, "");
  stage.continuation = {
    instructions,
    by,
    at: ctx.at,
    fromRunId: source.runId,
    fromAttempt: source.attempt,
  };
  stage.failures = 0;
  stage.retryAt = null;
  stage.blockedBy = null;
  const quoted =
    instructions.length <= NOTE_QUOTE_MAX ? instructions : `${instructions.slice(0, NOTE_QUOTE_MAX - 1)}…`;
  const note = `continued by ${who} from attempt ${source.attempt}: "${quoted.replace(/\s+/g, " ")}"`;
  if (stage.status === "completed") {
    const wait = `${note}; its dependents that have not started wait until it is merged again`;
    if (!moveStage(ctx, stage, "queued", wait, { reopen: true }))
      return refuse(`\`${stage.id}\` cannot be re-opened`);
    stage.merged = false;
    delete stage.mergedSha;
  } else {
    requeueStage(ctx, stage, note);
  }
  addNote(ctx, stage, "queued: a continue session resumes the earlier session with the instructions");
  return { ok: true, text: `continuing \`${stage.id}\`` };
}

/** A continue session ended with its checks run: the instructions are carried out (or failed their checks). */
export function closeContinuation(stage: StageState, session: Session): void {
  if (session.kind === "continue") delete stage.continuation;
}
