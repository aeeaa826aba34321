/**
 * `npm start` (through `app/start.js`, which refuses Node.js older than 24): the loom GitHub App
 * server. The only file that reads the environment (the drain thread gets it from here).
 *
 * `.env` is applied first, as Probot applies it, so every setting may live there. Without APP_ID /
 * PRIVATE_KEY, Probot serves its setup page on http://localhost:3000, which registers the App from
 * `app.yml` (GitHub's manifest flow) and writes the credentials to `.env`; the working App then
 * starts in this process, on the same port. With them, it serves webhooks (WEBHOOK_SECRET verifies
 * their signature; without one loom refuses to start rather than accept Probot's development secret).
 */
import { hostname } from "node:os";
import path from "node:path";
import { run, type Logger } from "probot";
import { collectDefaultMetrics, Registry } from "prom-client";
import { readAppConfig } from "./config/app-config.ts";
import { startDrainThread } from "./drain/start-drain-thread.ts";
import { UnthrottledOctokit } from "./github/unthrottled-octokit.ts";
import { takeWebhooks } from "./handlers/take-webhooks.ts";
import { joinMetrics, readRegistry, serveMetrics } from "./metrics/serve-metrics.ts";
import { startMetricsServer } from "./metrics/start-metrics-server.ts";
import { guardWebhookServers } from "./refuse-unsigned-webhooks.ts";
import { acceptWebhooksAtRoot } from "./setup/accept-webhooks-at-root.ts";
import { hasAppCredentials } from "./setup/has-app-credentials.ts";
import { loadEnvFile } from "./setup/load-env-file.ts";
import { serveSetup } from "./setup/serve-setup.ts";
import { shutdownOnSignals } from "./shutdown-on-signals.ts";
import { consoleShutdownLog, stopLoom, type RunningLoom } from "./stop-loom.ts";
import { openStore } from "./store/open-store.ts";
import { createSqliteWriteGate } from "./store/sqlite-write-gate.ts";
import { SchemaTooNewError } from "./store/schema-version.ts";

/** Thrown for a setting the operator must fix: printed as one line, no stack. */
class StartError extends Error {}

const MINIMUM_NODE_MAJOR = 24;

async function main(env: NodeJS.ProcessEnv): Promise<void> {
  const major = Number(process.versions.node.split(".")[0]);
  if (major < MINIMUM_NODE_MAJOR) {
    throw new StartError(
      `loom needs Node.js ${MINIMUM_NODE_MAJOR} or newer (this is ${process.version}): install it, or run \`nvm use\` in the loom checkout (it has .nvmrc)`,
    );
  }
  const envPath = path.join(process.cwd(), ".env");
  loadEnvFile(env, envPath);
  const logs: LogHolder = { current: null };
  // Bodies over GitHub's 25 MB webhook cap get 413 before Probot buffers them; unsigned, forged and
  // unparseable webhooks get Probot's 400 and one warn line, before Probot logs their payloads.
  guardWebhookServers({
    secret: () => env["WEBHOOK_SECRET"],
    paths: [env["WEBHOOK_PATH"] || "/api/github/webhooks", "/"],
    log: () => logs.current ?? { warn: (data, message) => console.warn(message, data) },
  });
  if (!hasAppCredentials(env)) {
    await serveSetup({ envPath, env, startApp: () => startLoom(env, logs), onStartFailed: fail });
    return;
  }
  await startLoom(env, logs);
}

/** Probot's logger, once the App is loaded (the webhook guard logs with it). */
type LogHolder = { current: Logger | null };

async function startLoom(env: NodeJS.ProcessEnv, logs: LogHolder): Promise<void> {
  if (!env["WEBHOOK_SECRET"]) {
    throw new StartError(
      "WEBHOOK_SECRET is not set: set it to the App's webhook secret (the setup page writes it to .env); loom never accepts webhooks signed with a default secret",
    );
  }
  let config: ReturnType<typeof readAppConfig>;
  try {
    config = readAppConfig(env);
  } catch (error) {
    throw new StartError(error instanceof Error ? error.message : String(error), { cause: error });
  }
  // SQLite: deliveries (which GitHub waits for) are written before the drain thread's next write.
  const writeGate = createSqliteWriteGate();
  const store = await openStore({
    ...(config.databaseUrl === null ? {} : { databaseUrl: config.databaseUrl }),
    sqlitePath: config.sqlitePath,
    writeGate: { shared: writeGate, role: "priority" },
  });
  // SIGINT and SIGTERM drain whatever of it is up by then (app/shutdown-on-signals.ts).
  const loom: RunningLoom = {
    store,
    workerId: config.workerId ?? `${hostname()}:${process.pid}`,
    engine: null,
    server: null,
    log: null,
  };
  const shutdown = shutdownOnSignals({
    target: process,
    log: () => loom.log ?? consoleShutdownLog,
    stop: () => stopLoom(loom, loom.log ?? consoleShutdownLog),
    exit: (code) => process.exit(code),
  });
  // The engine (inbox, outbox, timers, reconcile) runs on a thread of its own, so this one answers
  // GitHub without waiting behind it (app/drain/drain-thread.ts).
  const drain = startDrainThread({ env: definedOnly(env), workerId: loom.workerId, writeGate }, (error) =>
    shutdown.failed(error),
  );
  loom.engine = drain;
  const processMetrics = new Registry();
  collectDefaultMetrics({ register: processMetrics });
  const metrics = serveMetrics(joinMetrics(readRegistry(processMetrics), drain.readMetrics), {
    token: config.metrics.token,
    onError: (error) => logs.current?.warn({ err: error }, "metrics: scrape failed"),
  });
  const metricsServer =
    config.metrics.port === null
      ? null
      : await startMetricsServer({
          host: config.metrics.host,
          port: config.metrics.port,
          handler: metrics,
          onError: (error) => logs.current?.warn({ err: error }, "metrics: scrape failed"),
        }).catch((error: unknown) => {
          throw new StartError(
            `METRICS_PORT ${config.metrics.port} on ${config.metrics.host}: ${error instanceof Error ? error.message : String(error)}`,
            { cause: error },
          );
        });
  const server = await run(
    async (app, options) => {
      loom.log = app.log;
      logs.current = app.log;
      takeWebhooks(app, options.addHandler, {
        store,
        now: () => Date.now(),
        received: (event) => drain.received(event),
        wake: () => drain.wake(),
        // On this port only with a token and no port of its own (app-config.ts, `metrics`).
        metrics: config.metrics.port === null && config.metrics.token !== null ? metrics : null,
      });
      options.addHandler(await acceptWebhooksAtRoot(app));
    },
    // No GitHub request leaves this thread; the drain thread's Octokit is paced and bounded.
    { Octokit: UnthrottledOctokit },
  );
  loom.server = {
    stop: async () => {
      await server.stop();
      await metricsServer?.stop();
    },
  };
  shutdown.takeOver();
  await drain.ready;
  const { port, host, token } = config.metrics;
  loom.log?.info(
    { port, host, token: token !== null },
    port !== null
      ? `metrics at http://${host}:${port}/metrics${token === null ? "" : " (bearer token)"}`
      : token !== null
        ? "metrics at /metrics on this port (bearer token)"
        : "metrics not served: set METRICS_PORT or METRICS_TOKEN",
  );
}

/** The environment as strings (the drain thread's start-up data). */
function definedOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

function fail(error: unknown): void {
  if (error instanceof StartError || error instanceof SchemaTooNewError)
    console.error(`loom: ${error.message}`);
  else console.error(error);
  process.exit(1);
}

main(process.env).catch(fail);
