import { isPlanDone } from "../../src/orchestrator/clean-up-branches.ts";
import type { PlanState } from "../../src/orchestrator/state.ts";
import type { LoomMetrics } from "./create-metrics.ts";

/**
 * A plan's new state was committed (only the replica whose compare-and-swap won gets here, so
 * nothing counts twice): sessions that ended since `before` count as stage outcomes, and a plan
 * that just finished (every stage merged or skipped, or closed before that) observes its duration
 * from `openedAt`.
 */
export function recordPlanChange(
  metrics: LoomMetrics,
  before: PlanState | null,
  after: PlanState,
  openedAt: number,
  now: number,
): void {
  for (const [id, stage] of Object.entries(after.stages)) {
    const earlier = before?.stages[id]?.sessions ?? [];
    stage.sessions.forEach((session, i) => {
      const was = earlier[i];
      const sameSession = was !== undefined && was.attempt === session.attempt && was.kind === session.kind;
      if (session.outcome !== null && !(sameSession && was.outcome !== null))
        metrics.stageOutcomes.inc({ outcome: session.outcome, kind: session.kind });
    });
  }
  const wasFinished = before !== null && (before.closed || isPlanDone(before));
  // 0: opened by a loom from before schema 2 (no opening time recorded); its duration is unknown.
  if (wasFinished || openedAt <= 0) return;
  if (isPlanDone(after)) metrics.planDuration.observe({ end: "done" }, Math.max(0, now - openedAt) / 1000);
  else if (after.closed) metrics.planDuration.observe({ end: "closed" }, Math.max(0, now - openedAt) / 1000);
}
