import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Store } from "../store/store.ts";

/**
 * loom's Prometheus metrics, on a registry of their own (one per App instance, so two instances in
 * one process never clash), served at `GET /metrics`. Counters only count what this replica did;
 * the depth gauges read the shared store at scrape time, so every replica reports the same depth.
 */
export type LoomMetrics = {
  registry: Registry;
  deliveriesReceived: Counter<"event">;
  deliveriesProcessed: Counter<"outcome">;
  inboxDepth: Gauge;
  outboxDepth: Gauge;
  effectLatency: Histogram<"effect">;
  githubRequests: Counter<"method" | "status">;
  rateLimitRemaining: Gauge<"installation">;
  dispatches: Counter<"result">;
  merges: Counter<"result">;
  stageOutcomes: Counter<"outcome" | "kind">;
  planDuration: Histogram<"end">;
};

export type CreateMetricsOptions = {
  /** Read at every scrape for the inbox and outbox depth. */
  store: Pick<Store, "countBacklog">;
  /** A scrape whose store read failed still answers (the depth keeps its last value); the error goes here. */
  onError?: (error: unknown) => void;
  /** Node.js process metrics (`process_*`, `nodejs_*`) too (default true). */
  defaultMetrics?: boolean;
};

export function createMetrics(options: CreateMetricsOptions): LoomMetrics {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  let backlog: Promise<void> | null = null;
  /** One store read per scrape, shared by both gauges. */
  const readBacklog = (): Promise<void> =>
    (backlog ??= options.store
      .countBacklog()
      .then(
        (counts) => {
          inboxDepth.set(counts.deliveries);
          outboxDepth.set(counts.effects);
        },
        (error: unknown) => options.onError?.(error),
      )
      .finally(() => {
        backlog = null;
      }));
  const inboxDepth: Gauge = new Gauge({
    name: "loom_inbox_depth",
    help: "Webhook deliveries recorded and not processed yet (all replicas)",
    registers,
    collect: readBacklog,
  });
  const outboxDepth: Gauge = new Gauge({
    name: "loom_outbox_depth",
    help: "Effects decided and not carried out yet (all replicas)",
    registers,
    collect: readBacklog,
  });
  return {
    registry,
    inboxDepth,
    outboxDepth,
    deliveriesReceived: new Counter({
      name: "loom_webhook_deliveries_received_total",
      help: "Signed webhook deliveries received, by event (duplicates included)",
      labelNames: ["event"],
      registers,
    }),
    deliveriesProcessed: new Counter({
      name: "loom_webhook_deliveries_processed_total",
      help: "Recorded deliveries (and parked events) processed, by outcome: processed, superseded (a newer push to the same pull request does its work), failed (parked for a later attempt), given_up (dead-lettered)",
      labelNames: ["outcome"],
      registers,
    }),
    effectLatency: new Histogram({
      name: "loom_effect_latency_seconds",
      help: "From an effect being decided (enqueued) to being done on GitHub, by effect type",
      labelNames: ["effect"],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900],
      registers,
    }),
    githubRequests: new Counter({
      name: "loom_github_requests_total",
      help: "GitHub API requests, by method and status class (2xx, 3xx, 4xx, 5xx, error: no response)",
      labelNames: ["method", "status"],
      registers,
    }),
    rateLimitRemaining: new Gauge({
      name: "loom_github_rate_limit_remaining",
      help: "x-ratelimit-remaining of the latest GitHub response, by installation (app: the App's own token)",
      labelNames: ["installation"],
      registers,
    }),
    dispatches: new Counter({
      name: "loom_dispatches_total",
      help: "Stage runs dispatched, by result: dispatched, refused (GitHub would not start the workflow)",
      labelNames: ["result"],
      registers,
    }),
    merges: new Counter({
      name: "loom_merges_total",
      help: "Stage branch merges into the pull request's branch, by result: merged, nothing-to-merge, conflict, error",
      labelNames: ["result"],
      registers,
    }),
    stageOutcomes: new Counter({
      name: "loom_stage_outcomes_total",
      help: "Stage sessions that ended, by outcome (completed, crashed, hung…) and kind (stage, recovery, merge)",
      labelNames: ["outcome", "kind"],
      registers,
    }),
    planDuration: new Histogram({
      name: "loom_plan_duration_seconds",
      help: "From a plan being opened to being finished, by end: done (every stage merged or skipped), closed (before that)",
      labelNames: ["end"],
      buckets: [60, 300, 600, 1800, 3600, 7200, 14_400, 28_800, 86_400, 259_200, 604_800],
      registers,
    }),
  };
}
