import type { ContinuedFrom } from "../../../src/artifacts/stage-result.ts";
import type { Stage } from "../../../src/plan/plan.ts";
import { buildSignal } from "../../../src/signal/build-signal.ts";
import { buildResumePrompt } from "../../../src/signal/resume-prompt.ts";
import type { SignalInput } from "../../../src/signal/signal-input.ts";
import type { LoadedSessionCaps } from "../config/load-session-caps.ts";
import type { RunStageInputs } from "../run-stage-inputs.ts";
import type { SessionOutcome } from "../session/session-outcome.ts";
import type { LoadedContinue } from "./load-continue.ts";
import { runContinueSession } from "./run-continue-session.ts";
import type { RunStageDeps } from "./run-stage-deps.ts";
import { runSessionSafely } from "./run-session-safely.ts";
import { stoppedOutcome } from "./stopped-outcome.ts";

/**
 * The stage's Claude Code session from its signal: none when the run was cancelled before it
 * started; for a continue (`continued`), the earlier session resumed or a fresh one with the
 * handoff prompt (`continued` in the answer says which); else a session with the full signal.
 */
export async function startSession(
  inputs: RunStageInputs,
  deps: RunStageDeps,
  stage: Stage,
  signal: SignalInput,
  caps: LoadedSessionCaps,
  learningsFile: string | undefined,
  continued: Extract<LoadedContinue, { ok: true }> | undefined,
): Promise<{ session: SessionOutcome; continued?: ContinuedFrom }> {
  if (deps.signal?.aborted) {
    const why = "the run was cancelled before the session started";
    return { session: stoppedOutcome("cancelled", stage.id, inputs.attempt, deps.now(), "", why) };
  }
  const prompt = buildSignal(signal);
  if (continued === undefined)
    return { session: await runSessionSafely(inputs, deps, stage, prompt, caps, learningsFile) };
  const prompts = { resume: buildResumePrompt(signal), fresh: prompt };
  return runContinueSession(inputs, deps, stage, continued, prompts, caps, learningsFile);
}
