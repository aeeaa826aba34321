import type { ApplicationFunction, Probot } from "probot";
import { createProbotEngine } from "./create-probot-engine.ts";
import type { Engine } from "./engine/create-engine.ts";
import type { EngineDeps } from "./engine/engine-deps.ts";
import { takeWebhooks } from "./handlers/take-webhooks.ts";
import { createMetrics } from "./metrics/create-metrics.ts";
import { readRegistry, serveMetrics } from "./metrics/serve-metrics.ts";

export type LoomAppOptions = Omit<EngineDeps, "getOctokit" | "getBotLogin" | "log"> & {
  /** loom's bot login; read from `GET /app` (once) when not given. */
  botLogin?: string | null;
  /** Receives the engine once the app is loaded (tests drain it and start its intervals). */
  onEngine?: (engine: Engine) => void;
  /** Process recorded deliveries right after recording them (default true). */
  autoDrain?: boolean;
  /** `/metrics` only to `Authorization: Bearer <token>` (default: to anyone). */
  metricsToken?: string | null;
};

/**
 * The Probot app function (`probot.load(createLoomApp(options))`): webhook handlers that only
 * record deliveries, and the engine that processes them with the installation's Octokit, both on
 * this thread (tests, and Probot's own `probot run`). `npm start` (`main.ts`) runs the same
 * handlers with the engine on a thread of its own.
 */
export function createLoomApp(options: LoomAppOptions): ApplicationFunction {
  return (app: Probot, { addHandler }) => {
    const metrics =
      options.metrics ??
      createMetrics({
        store: options.store,
        onError: (error) => app.log.warn({ err: error }, "metrics: could not read the store's backlog"),
      });
    const engine = createProbotEngine(app, { ...options, metrics });
    takeWebhooks(app, addHandler, {
      store: options.store,
      now: options.now,
      received: (event) => metrics.deliveriesReceived.inc({ event }),
      wake: options.autoDrain === false ? () => undefined : () => engine.wake(),
      metrics: serveMetrics(readRegistry(metrics.registry), {
        token: options.metricsToken ?? null,
        onError: (error) => app.log.warn({ err: error }, "metrics: scrape failed"),
      }),
    });
    options.onEngine?.(engine);
  };
}

export default createLoomApp;
