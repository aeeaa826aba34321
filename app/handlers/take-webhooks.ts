import type { ApplicationFunctionOptions, Probot } from "probot";
import type { MetricsHandler } from "../metrics/serve-metrics.ts";
import type { Store } from "../store/store.ts";
import { createHealthCheck } from "./health-check.ts";
import { recordDeliveries } from "./record-deliveries.ts";

export type TakeWebhooksOptions = {
  store: Store;
  now: () => number;
  /** Every signed delivery, by event name (`loom_webhook_deliveries_received_total`). */
  received: (event: string) => void;
  /** A new delivery was recorded: drain soon, without waiting. */
  wake: () => void;
  /** `/metrics` on this (the webhook) port, or null when it is served elsewhere or nowhere. */
  metrics: MetricsHandler | null;
};

/**
 * The webhook side of loom, whatever runs the engine: deliveries recorded in the durable inbox
 * and answered at once (the engine is woken, never waited for), `/healthz`, and `/metrics` when it
 * belongs on this port.
 */
export function takeWebhooks(
  app: Probot,
  addHandler: ApplicationFunctionOptions["addHandler"],
  options: TakeWebhooksOptions,
): void {
  app.onAny((context) => options.received(context.name));
  recordDeliveries(app, options);
  const healthCheck = createHealthCheck(options.store, (error) =>
    app.log.warn({ err: error }, "health check: store unreachable"),
  );
  try {
    addHandler(healthCheck);
    if (options.metrics !== null) addHandler(options.metrics);
  } catch (error) {
    // `probot.load` without an HTTP server (tests, serverless) has nowhere to serve them.
    app.log.debug({ err: error }, "no HTTP server: /healthz and /metrics are not served");
  }
}
