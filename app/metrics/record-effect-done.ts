import type { Effect } from "../../src/orchestrator/effects.ts";
import type { OrchestratorEvent } from "../../src/orchestrator/events.ts";
import type { LoomMetrics } from "./create-metrics.ts";

/**
 * An effect was carried out on GitHub: its latency from being decided, and what the dispatches and
 * merges among them came to (read from the events they return: `run.dispatched` or a refusal's
 * `run.finished`, `merge.finished` with its outcome).
 */
export function recordEffectDone(
  metrics: LoomMetrics,
  effect: Pick<Effect, "type">,
  events: readonly OrchestratorEvent[],
  latencyMs: number,
): void {
  metrics.effectLatency.observe({ effect: effect.type }, Math.max(0, latencyMs) / 1000);
  for (const event of events) {
    if (effect.type === "dispatchRun" && event.type === "run.dispatched")
      metrics.dispatches.inc({ result: "dispatched" });
    else if (effect.type === "dispatchRun" && event.type === "run.finished")
      metrics.dispatches.inc({ result: "refused" });
    else if (effect.type === "mergeBranch" && event.type === "merge.finished")
      metrics.merges.inc({ result: event.outcome });
  }
}
