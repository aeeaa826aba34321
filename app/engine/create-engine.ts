import type { EngineDeps } from "./engine-deps.ts";
import { processDeliveries } from "./process-deliveries.ts";
import { reconcilePlans } from "./reconcile-plans.ts";
import { runDueTimers } from "./run-due-timers.ts";
import { runEffects } from "./run-effects.ts";
import { PROGRESS_LANE } from "../../src/orchestrator/effect-lane.ts";

/** Work claimed per round from each queue. */
const BATCH = 20;
/** Rounds per drain: each round claims up to BATCH of each; a drain always ends. */
const MAX_ROUNDS = 200;
/** Processed deliveries are kept this long for deduplication (manual redeliveries come later too). */
const DELIVERY_RETENTION_MS = 14 * 24 * 3600 * 1000;

export type Engine = {
  /** Processes the inbox, the outbox and due timers until nothing is left (bounded). */
  drain(): Promise<void>;
  /** Asks for a drain soon without waiting for it (a webhook just arrived). */
  wake(): void;
  /** Re-reads GitHub for every active plan, then drains. */
  reconcile(): Promise<void>;
  /** Resolves once no drain or reconcile started by `wake`/`start` is running. */
  idle(): Promise<void>;
  /** Starts the poll and reconcile intervals. */
  start(intervals: { pollMs: number; reconcileMs: number }): void;
  /**
   * Stops taking work: the intervals end, no new drain or round starts, and it resolves once the
   * round in flight has finished what it claimed (what is left stays in the store for any replica).
   */
  stop(): Promise<void>;
};

/**
 * The app's worker: everything after "a webhook was recorded" happens here, in this order per
 * round: deliveries → orchestrator events → committed state + outbox; outbox effects → GitHub →
 * events back; due timers → `tick`. Several workers (replicas) may run at once: the store's leases
 * and compare-and-swap keep them from doing the same work twice.
 */
export function createEngine(deps: EngineDeps): Engine {
  let running: Promise<void> | null = null;
  let again = false;
  const timers: NodeJS.Timeout[] = [];
  /** Set by `start`: no claim before the previous incarnation's leases are freed. */
  let released: Promise<void> = Promise.resolve();
  /** Set by `stop`: no new round starts (a round in flight finishes what it claimed). */
  let stopped = false;

  const drainOnce = async () => {
    await released;
    for (let round = 0; round < MAX_ROUNDS && !stopped && !deps.stopping?.aborted; round++) {
      // Progress first: a merge's events enqueue the dependents' branch and dispatch, which run
      // at once, before deliveries and before any check-run or status-comment write.
      let progress = 0;
      for (let pass = 0; pass < MAX_ROUNDS && !stopped && !deps.stopping?.aborted; pass++) {
        const claimed = await runEffects(deps, BATCH, PROGRESS_LANE);
        if (claimed === 0) break;
        progress += claimed;
      }
      const deliveries = await processDeliveries(deps, BATCH);
      const effects = progress + (await runEffects(deps, BATCH));
      const due = await runDueTimers(deps, BATCH);
      if (deliveries + effects + due === 0) return;
    }
    // Ended by `stop` or the process stopping: the work left is for the next start or replica.
    if (stopped || deps.stopping?.aborted) return;
    deps.log.warn("drain stopped after its round limit; the next poll continues");
  };

  const drain = async (): Promise<void> => {
    if (stopped) return;
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await drainOnce();
        } while (again && !stopped);
      } finally {
        running = null;
      }
    })();
    return running;
  };

  /** Work started by `wake` or the intervals, for `stop` to wait on. */
  const inFlight = new Set<Promise<void>>();
  const guarded = (what: string, work: () => Promise<void>) => {
    const done = work()
      .catch((error: unknown) => deps.log.error({ err: error }, `${what} failed`))
      .finally(() => inFlight.delete(done));
    inFlight.add(done);
  };

  const reconcile = async () => {
    if (stopped) return;
    await reconcilePlans(deps);
    await drain();
    const pruned = await deps.store.pruneDeliveries(deps.now() - DELIVERY_RETENTION_MS);
    if (pruned > 0) deps.log.info({ pruned }, "old deliveries pruned");
  };

  return {
    drain,
    wake: () => guarded("drain", drain),
    reconcile,
    // A failed drain was reported to whoever started it (logged for `wake` and the intervals):
    // waiting for it only waits.
    idle: async () => {
      while (running) await settled(running);
    },
    start: ({ pollMs, reconcileMs }) => {
      stopped = false;
      released = releaseOwnLeases(deps);
      timers.push(setInterval(() => guarded("drain", drain), pollMs));
      timers.push(setInterval(() => guarded("reconcile", reconcile), reconcileMs));
      guarded("reconcile", reconcile);
    },
    stop: async () => {
      stopped = true;
      for (const timer of timers.splice(0)) clearInterval(timer);
      while (running || inFlight.size > 0) await Promise.all([running, ...inFlight].map(settled));
    },
  };
}

/** Resolves when `work` settles, whichever way (its failure is its starter's to report). */
function settled(work: Promise<void> | null): Promise<void> {
  return work === null ? Promise.resolve() : work.catch(() => undefined);
}

/**
 * A worker starting under a name that holds leases is a restart of that worker (names are unique
 * per replica): whatever its previous process had claimed when it died (an effect half done, a
 * delivery) is taken back now rather than when the leases end (up to 2 minutes). Effects are
 * idempotent by key (a dispatch looks for its run first), so carrying one out again is safe.
 */
async function releaseOwnLeases(deps: EngineDeps): Promise<void> {
  try {
    const freed = await deps.store.releaseLeases(deps.workerId);
    if (freed > 0)
      deps.log.info(
        { freed, workerId: deps.workerId },
        "took back work leased to this worker before a restart",
      );
  } catch (error) {
    deps.log.warn({ err: error }, "could not free this worker's old leases; they end on their own");
  }
}
