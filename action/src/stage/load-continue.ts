import type { SignalInstructions } from "../../../src/signal/signal-input.ts";
import { renderPreviousResult } from "../../../src/signal/previous-result.ts";
import { redactSecrets } from "../../../src/redact/redact-secrets.ts";
import type { RunStageInputs } from "../run-stage-inputs.ts";
import type { RunStageDeps } from "./run-stage-deps.ts";

/** Claude Code's earlier session, ready to resume. */
export type ResumableSession = { sessionId: string; transcript: string };

/**
 * What a continue session starts from: the person's instructions (from loom's record for this
 * run), the run it continues, and either the earlier session to resume or the handoff a fresh
 * session gets instead (with why it cannot resume).
 */
export type LoadedContinue =
  | { ok: false; reason: string }
  | {
      ok: true;
      instructions: SignalInstructions;
      fromRunId: number;
      resume: ResumableSession | null;
      /** Why the earlier session is not resumed (set when `resume` is null). */
      why?: string;
      /** The earlier session's handoff, or an account of its result, for a fresh session. */
      handoff?: string;
    };

/**
 * Reads the instructions and the previous run's artifacts of a continue session. No record for
 * this run is a failure (the session never runs without the person's instructions); missing state
 * is not: the session then starts fresh with a handoff prompt, and says why.
 */
export async function loadContinue(inputs: RunStageInputs, deps: RunStageDeps): Promise<LoadedContinue> {
  const fromRunId = inputs.previous_run_id;
  if (fromRunId === undefined) return { ok: false, reason: "a continue session needs previous_run_id" };
  if (deps.readContinueRecord === undefined)
    return { ok: false, reason: "this runner cannot read loom's continue record" };
  const read = await deps.readContinueRecord();
  if (!read.ok)
    return { ok: false, reason: `the instructions for this run could not be read: ${read.reason}` };
  const { record } = read;
  const instructions = { text: record.instructions, by: record.by, fromAttempt: record.from_attempt };
  let previous;
  try {
    previous = await deps.loadPrevious(fromRunId, { withSessionState: true });
  } catch (error) {
    const text = redactSecrets(String(error), deps.knownSecrets).slice(0, 300);
    return {
      ok: true,
      instructions,
      fromRunId,
      resume: null,
      why: `its artifacts could not be read: ${text}`,
    };
  }
  for (const note of previous.notes) deps.log("previous run", { note });
  const handoff = previous.result === undefined ? previous.handoff : renderPreviousResult(previous.result);
  const fresh = (why: string): LoadedContinue => ({
    ok: true,
    instructions,
    fromRunId,
    resume: null,
    why,
    ...(handoff === undefined ? {} : { handoff }),
  });
  if (previous.result?.outcome === "needs-handoff")
    return fresh("the earlier session ran out of context: a fresh session continues from its handoff");
  const state = previous.sessionState;
  if (state === undefined) return fresh(`run ${fromRunId}'s session state was not read`);
  if (!state.ok) return fresh(state.reason);
  return {
    ok: true,
    instructions,
    fromRunId,
    resume: { sessionId: state.sessionId, transcript: state.transcript },
  };
}
