import type { ContinuedFrom } from "../../../src/artifacts/stage-result.ts";
import type { Stage } from "../../../src/plan/plan.ts";
import type { LoadedSessionCaps } from "../config/load-session-caps.ts";
import type { RunStageInputs } from "../run-stage-inputs.ts";
import type { SessionOutcome } from "../session/session-outcome.ts";
import type { LoadedContinue } from "./load-continue.ts";
import type { RunStageDeps } from "./run-stage-deps.ts";
import { runSessionSafely } from "./run-session-safely.ts";

type Loaded = Extract<LoadedContinue, { ok: true }>;

export type ContinueRun = { session: SessionOutcome; continued: ContinuedFrom };

/**
 * A continue session: Claude Code's earlier session resumed with `resumePrompt` when its state is
 * there, else (or when Claude Code refuses to resume it: it ends at once with no turn) a fresh
 * session with `freshPrompt`, the full signal with the earlier result and the instructions. The
 * result says which, and why not resumed.
 */
export async function runContinueSession(
  inputs: RunStageInputs,
  deps: RunStageDeps,
  stage: Stage,
  loaded: Loaded,
  prompts: { resume: string; fresh: string },
  caps: LoadedSessionCaps,
  learningsFile: string | undefined,
): Promise<ContinueRun> {
  const from = loaded.fromRunId;
  if (loaded.resume !== null) {
    deps.log("resuming the earlier session", { session: loaded.resume.sessionId, run: from });
    const session = await runSessionSafely(
      inputs,
      deps,
      stage,
      prompts.resume,
      caps,
      learningsFile,
      loaded.resume,
    );
    const refused = session.status === "crashed" && session.turns === 0 && deps.signal?.aborted !== true;
    if (!refused) return { session, continued: { mode: "resumed", from_run_id: from } };
    deps.log("Claude Code did not resume the earlier session", { reason: session.reason });
    const why = `Claude Code did not resume it (${session.reason.slice(0, 300)})`;
    return fresh(inputs, deps, stage, from, why, prompts.fresh, caps, learningsFile);
  }
  return fresh(inputs, deps, stage, from, loaded.why ?? "", prompts.fresh, caps, learningsFile);
}

async function fresh(
  inputs: RunStageInputs,
  deps: RunStageDeps,
  stage: Stage,
  from: number,
  why: string,
  prompt: string,
  caps: LoadedSessionCaps,
  learningsFile: string | undefined,
): Promise<ContinueRun> {
  deps.log("continuing with a handoff prompt", { why });
  const session = await runSessionSafely(inputs, deps, stage, prompt, caps, learningsFile);
  return { session, continued: { mode: "handoff", from_run_id: from, reason: why.slice(0, 500) } };
}
