import type { ApplicationFunction, Probot, ProbotOctokit } from "probot";
import { createEngine } from "./engine/create-engine.ts";
import type { Engine } from "./engine/create-engine.ts";
import type { EngineDeps } from "./engine/engine-deps.ts";
import { createHealthCheck } from "./handlers/health-check.ts";
import { recordDeliveries } from "./handlers/record-deliveries.ts";
import { createMetrics } from "./metrics/create-metrics.ts";
import { observeOctokit } from "./metrics/observe-octokit.ts";
import { serveMetrics } from "./metrics/serve-metrics.ts";

export type LoomAppOptions = Omit<EngineDeps, "getOctokit" | "getBotLogin" | "log"> & {
  /** loom's bot login; read from `GET /app` (once) when not given. */
  botLogin?: string | null;
  /** Receives the engine once the app is loaded (tests drain it; `main.ts` starts its intervals). */
  onEngine?: (engine: Engine) => void;
  /** Process recorded deliveries right after recording them (default true). */
  autoDrain?: boolean;
};

/**
 * The Probot app function (`probot.load(createLoomApp(options))`): webhook handlers that only
 * record deliveries, and the engine that processes them with the installation's Octokit.
 */
export function createLoomApp(options: LoomAppOptions): ApplicationFunction {
  return (app: Probot, { addHandler }) => {
    const metrics =
      options.metrics ??
      createMetrics({
        store: options.store,
        onError: (error) => app.log.warn({ err: error }, "metrics: could not read the store's backlog"),
      });
    const engine = createEngine({
      ...options,
      metrics,
      log: app.log.child({ name: "loom" }),
      getOctokit: async (installationId) =>
        observeOctokit(await app.auth(installationId), metrics, String(installationId)),
      getBotLogin: memoizeBotLogin(app, options.botLogin, (octokit) =>
        observeOctokit(octokit, metrics, "app"),
      ),
    });
    app.onAny((context) => {
      metrics.deliveriesReceived.inc({ event: context.name });
    });
    recordDeliveries(app, {
      store: options.store,
      now: options.now,
      wake: options.autoDrain === false ? () => undefined : () => engine.wake(),
    });
    const healthCheck = createHealthCheck(options.store, (error) =>
      app.log.warn({ err: error }, "health check: store unreachable"),
    );
    try {
      addHandler(healthCheck);
      addHandler(
        serveMetrics(metrics.registry, (error) => app.log.warn({ err: error }, "metrics: scrape failed")),
      );
    } catch (error) {
      // `probot.load` without an HTTP server (tests, serverless) has nowhere to serve them.
      app.log.debug({ err: error }, "no HTTP server: /healthz and /metrics are not served");
    }
    options.onEngine?.(engine);
  };
}

export default createLoomApp;

function memoizeBotLogin(
  app: Probot,
  given: string | null | undefined,
  observe: (octokit: ProbotOctokit) => ProbotOctokit,
): () => Promise<string | null> {
  if (given !== undefined && given !== null) return () => Promise.resolve(given);
  let known: Promise<string | null> | null = null;
  return () => {
    known ??= app
      .auth()
      .then((octokit) => observe(octokit).rest.apps.getAuthenticated())
      .then(({ data }) => (data?.slug ? `${data.slug}[bot]` : null))
      .catch((error: unknown) => {
        app.log.warn({ err: error }, "could not read the app's slug; set LOOM_BOT_LOGIN");
        known = null;
        return null;
      });
    return known;
  };
}
