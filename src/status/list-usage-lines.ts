import type { PlanState } from "../orchestrator/state.ts";

/** One session's usage as `loom usage` prints it: a line of `loom-usage.jsonl`. */
export type UsageLine = {
  repo: string;
  pr: number;
  plan: string;
  stage: string;
  attempt: number;
  kind: string;
  model: string | null;
  run_id: number | null;
  finished_at: string | null;
  turns: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_creation_tokens: number;
  cost_usd: number;
  duration_ms: number;
  /** Why the attempt ran again after its stage had completed (a re-run), else null. */
  rerun_why: string | null;
};

/**
 * Every session of a plan that reported its usage (from the action's `loom-result`: Claude Code's
 * own numbers), in plan order and then attempt order. Sessions without a report (still running,
 * or lost before they wrote one) are left out: nothing is estimated. `where` is the plan's row key.
 */
export function listUsageLines(where: { repo: string; pr: number }, state: PlanState): UsageLine[] {
  return state.order.flatMap((id) =>
    (state.stages[id]?.sessions ?? []).flatMap((session) => {
      const usage = session.report?.usage;
      if (usage === undefined) return [];
      return [
        {
          repo: where.repo,
          pr: where.pr,
          plan: state.plan.id,
          stage: id,
          attempt: session.attempt,
          kind: session.kind,
          model: usage.model ?? null,
          run_id: session.runId,
          finished_at: session.finishedAt === null ? null : new Date(session.finishedAt).toISOString(),
          turns: usage.turns,
          input_tokens: usage.inputTokens,
          output_tokens: usage.outputTokens,
          cache_read_tokens: usage.cacheReadTokens,
          cache_creation_tokens: usage.cacheCreationTokens,
          cost_usd: usage.costUsd,
          duration_ms: usage.durationMs,
          rerun_why: session.rerunWhy ?? null,
        },
      ];
    }),
  );
}
