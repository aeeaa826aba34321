import type { EffectContext } from "../github/effect-context.ts";
import type { Heartbeat, RunOutcome } from "../../src/orchestrator/events.ts";

export type RunRef = { runId: number; conclusion: string | null };
export type ReadOutcome = { outcome: RunOutcome; detail: string };

/**
 * How a finished run ended. Interim: from the run's conclusion alone, until the executor's
 * artifact reader (`readRunOutcome`, loom-result) is wired in here.
 */
export function readOutcome(_ctx: EffectContext, run: RunRef): Promise<ReadOutcome> {
  const outcomes: Record<string, ReadOutcome> = {
    success: { outcome: "completed", detail: "the run succeeded" },
    cancelled: { outcome: "cancelled", detail: "the run was cancelled" },
    timed_out: { outcome: "timed-out", detail: "the run timed out" },
  };
  const known = run.conclusion === null ? undefined : outcomes[run.conclusion];
  return Promise.resolve(
    known ?? { outcome: "crashed", detail: `the run ended: ${run.conclusion ?? "unknown"}` },
  );
}

/** The newest heartbeat of a run in progress, or null. Interim: none until the reader is wired in. */
export function readHeartbeat(_ctx: EffectContext, _runId: number): Promise<Heartbeat | null> {
  return Promise.resolve(null);
}
