import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { Effect } from "../../src/orchestrator/effects.ts";
import { executeEffect } from "../github/execute-effect.ts";
import { recordEffectDone } from "../metrics/record-effect-done.ts";
import type { OutboxEffect } from "../store/store.ts";
import { applyEvents } from "./apply-events.ts";
import { buildRepoContext, withState } from "./build-repo-context.ts";
import { effectRetryAt } from "./effect-retry-at.ts";
import type { EngineDeps } from "./engine-deps.ts";
import { readStoredPlan } from "./stored-plan.ts";
import { effectLane, PROGRESS_LANE } from "../../src/orchestrator/effect-lane.ts";
import { runAsDisplayWrites } from "../github/write-limiter.ts";

/** How long one claimed effect is ours (a dispatch may look for its run for a few seconds). */
const EFFECT_LEASE_MS = 120_000;

/**
 * Claims due effects from the outbox (with `maxLane`, only those of that lane or a lower one) and
 * carries them out with the plan's current state; the events they return (run dispatched, merge
 * finished…) go back through the reducer. When loom stops (`deps.stopping`), the effect in flight
 * and those not started stay leased for `releaseLeases` to hand on (effects are idempotent by
 * key). Returns how many effects were claimed.
 */
export async function runEffects(deps: EngineDeps, limit: number, maxLane?: number): Promise<number> {
  const claimed = await deps.store.claimEffects(deps.workerId, limit, EFFECT_LEASE_MS, deps.now(), maxLane);
  for (const item of claimed) {
    // Stopping: the rest stay leased to this worker, whose leases are released on the way out.
    if (deps.stopping?.aborted) break;
    await runOne(deps, item);
    await yieldToEventLoop(); // let waiting webhooks in (see processDeliveries)
  }
  return claimed.length;
}

async function runOne(deps: EngineDeps, item: OutboxEffect): Promise<void> {
  const effect = item.effect as Effect;
  const log = deps.log.child({ effect: effect.type, key: item.key });
  try {
    const record = await deps.store.getPlan(item.planKey);
    if (record === null) {
      await deps.store.failEffect(item.key, "its plan is gone", null);
      return;
    }
    const stored = readStoredPlan(record);
    const octokit = await deps.getOctokit(item.planKey.installationId);
    const context = await buildRepoContext(deps, octokit, item.planKey, stored.repo);
    const execute = () => executeEffect(withState(context, stored.state, item.attempts), effect);
    const events = await (effectLane(effect) === PROGRESS_LANE ? execute() : runAsDisplayWrites(execute));
    if (deps.metrics) recordEffectDone(deps.metrics, effect, events, deps.now() - item.enqueuedAt);
    if (events.length > 0) await applyEvents(deps, { key: item.planKey, events });
    await deps.store.completeEffect(item.key, { events: events.map((event) => event.type) }, deps.now());
  } catch (error) {
    if (deps.stopping?.aborted) {
      log.info({ err: error }, "effect interrupted by shutdown; it is handed on with this worker's leases");
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    const retryAt = effectRetryAt(error, item.attempts, deps.now());
    const again = retryAt !== null;
    log.error(
      { err: error, attempts: item.attempts, retryAt },
      again ? "effect failed; retrying later" : "effect given up",
    );
    await deps.store.failEffect(item.key, message, retryAt);
  }
}
