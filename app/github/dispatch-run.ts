import { z } from "zod";
import type { Effect } from "../../src/orchestrator/effects.ts";
import type { OrchestratorEvent } from "../../src/orchestrator/events.ts";
import { readDefaultBranch } from "./default-branch.ts";
import { countCall, readErrorMessage, readStatus, sleepFor, toEffectError } from "./effect-context.ts";
import type { EffectContext } from "./effect-context.ts";
import { findDispatchedRun } from "./find-dispatched-run.ts";
import { recordContinuation } from "./record-continuation.ts";
import { recordAmendment } from "./record-amendment.ts";
import { EffectError } from "./effect-context.ts";
import { getMergePoint } from "../../src/orchestrator/make-target-branch.ts";

type DispatchRun = Extract<Effect, { type: "dispatchRun" }>;

/** `POST …/dispatches` with `return_run_details: true` answers 200 with these. */
export const DispatchDetails = z.object({
  workflow_run_id: z.number().int().positive(),
  run_url: z.string(),
  html_url: z.string(),
});
export type DispatchDetails = z.infer<typeof DispatchDetails>;

/** Look-ups for the run after a dispatch that returned no run id (bounded). */
const FIND_ATTEMPTS = 4;
const FIND_DELAY_MS = 2_000;

/** The inputs of the caller workflow, all strings, exactly these keys. */
export function buildDispatchInputs(ctx: EffectContext, effect: DispatchRun): Record<string, string> {
  return {
    key: effect.key,
    plan_path: ctx.state.planFile ?? ctx.state.plan.path,
    plan_id: ctx.state.plan.id,
    stage_id: effect.stageId,
    attempt: String(effect.attempt),
    kind: effect.kind,
    branch: effect.branch,
    base: getMergePoint(ctx.state),
    previous_run_id: effect.previousRunId === null ? "" : String(effect.previousRunId),
  };
}

type Posted = { ok: true; runId: number | null } | { ok: false; status: number | null; error: unknown };

async function postDispatch(
  ctx: EffectContext,
  effect: DispatchRun,
  ref: string,
  details: boolean,
): Promise<Posted> {
  countCall(ctx.calls, effect.type);
  try {
    const response = await ctx.octokit.request(
      "POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches",
      {
        owner: ctx.owner,
        repo: ctx.repo,
        workflow_id: ctx.config.workflowFile,
        ref,
        inputs: buildDispatchInputs(ctx, effect),
        ...(details ? { return_run_details: true } : {}),
        // Never retried blindly: a retried dispatch is a second run.
        request: { retries: 0 },
      } as never,
    );
    const parsed = DispatchDetails.safeParse((response as { data: unknown }).data);
    return { ok: true, runId: parsed.success ? parsed.data.workflow_run_id : null };
  } catch (error) {
    return { ok: false, status: readStatus(error), error };
  }
}

function dispatched(ctx: EffectContext, effect: DispatchRun, runId: number): OrchestratorEvent[] {
  ctx.log.info({ stage: effect.stageId, attempt: effect.attempt, runId }, "stage run dispatched");
  return [{ type: "run.dispatched", at: ctx.now(), stageId: effect.stageId, attempt: effect.attempt, runId }];
}

function refused(
  ctx: EffectContext,
  effect: DispatchRun,
  status: number | null,
  error: unknown,
  what = `GitHub refused to start ${ctx.config.workflowFile}`,
): OrchestratorEvent[] {
  const detail = `${what} (${status}): ${readErrorMessage(error)}`;
  ctx.log.error({ stage: effect.stageId, attempt: effect.attempt, status }, "dispatch refused");
  return [
    {
      type: "run.finished",
      at: ctx.now(),
      stageId: effect.stageId,
      attempt: effect.attempt,
      runId: 0,
      outcome: "crashed",
      detail,
    },
  ];
}

/**
 * Starts the stage workflow on the repository's DEFAULT branch (the trusted workflow definition;
 * the stage branch travels in the inputs), once per key: on a claim after a failed one, a run whose
 * title carries the key is taken instead of dispatching again. A server that refuses `return_run_details` (400/422) gets
 * one more dispatch without it, and the run is then found by its title.
 *
 * Returns `run.dispatched` with the run id; nothing when the run could not be found yet (its
 * `workflow_run` webhook or the reconcile finds it by key); `run.finished` (crashed, runId 0) when
 * GitHub refuses the dispatch for good (workflow missing, inputs refused, no permission).
 * Throws a retryable `EffectError` when the outcome is unknown (5xx, network): the next attempt
 * looks before dispatching again.
 */
export async function dispatchRun(ctx: EffectContext, effect: DispatchRun): Promise<OrchestratorEvent[]> {
  const ref = await readDefaultBranch(ctx, effect.type);
  const dispatchedAt =
    ctx.state.stages[effect.stageId]?.sessions.find((s) => s.attempt === effect.attempt)?.dispatchedAt ??
    ctx.now();
  // Every dispatch has a key of its own (stage, attempt), so only a claim after a failed one (whose
  // dispatch may have reached GitHub) can find its run already there: the first does not look.
  if ((ctx.attempt ?? 2) > 1) {
    const existing = await findDispatchedRun(ctx, effect.type, effect.key, ref, dispatchedAt);
    if (existing) return dispatched(ctx, effect, existing.id);
  }

  // A continue session's instructions and an amended stage's criteria are in place before its run
  // can look for them; a refusal names the record GitHub refused.
  const records = [
    { write: recordContinuation, what: "the instructions" },
    { write: recordAmendment, what: "the amended criteria" },
  ];
  for (const record of records) {
    try {
      await record.write(ctx, effect);
    } catch (error) {
      if (!(error instanceof EffectError) || error.retryable) throw error;
      const what = `GitHub refused loom's record of ${record.what}, so nothing was dispatched`;
      return refused(ctx, effect, error.status, error.cause ?? error, what);
    }
  }
  let posted = await postDispatch(ctx, effect, ref, true);
  if (!posted.ok && (posted.status === 400 || posted.status === 422)) {
    ctx.log.warn({ status: posted.status }, "dispatch with return_run_details refused; dispatching without");
    posted = await postDispatch(ctx, effect, ref, false);
  }
  if (!posted.ok) {
    const failure = toEffectError(`dispatching ${ctx.config.workflowFile}`, posted.error);
    if (failure.retryable) throw failure;
    return refused(ctx, effect, posted.status, posted.error);
  }
  if (posted.runId !== null) return dispatched(ctx, effect, posted.runId);

  for (let attempt = 0; attempt < FIND_ATTEMPTS; attempt++) {
    await sleepFor(ctx, FIND_DELAY_MS);
    const run = await findDispatchedRun(ctx, effect.type, effect.key, ref, dispatchedAt);
    if (run) return dispatched(ctx, effect, run.id);
  }
  ctx.log.warn({ stage: effect.stageId, key: effect.key }, "dispatched run not found yet");
  return [];
}
