/**
 * The drain thread of `npm start` (a `worker_threads` worker started by `startDrainThread`): the
 * engine — inbox processing, outbox effects, due timers, the reconcile loop — on an event loop of
 * its own, so the webhook thread answers GitHub without waiting behind it. It has its own store
 * connection (SQLite's WAL and `BEGIN IMMEDIATE`, or PostgreSQL, serialise the two threads' writes
 * as they do replicas'), its own Probot (for installation tokens and its logger) and its own
 * metrics, which the webhook thread asks for at each scrape. An entry file: it reads its settings
 * from the start-up data, never from `process.env`.
 */
import { parentPort, workerData } from "node:worker_threads";
import { createProbot, type Options } from "probot";
import { readAppConfig } from "../config/app-config.ts";
import { createProbotEngine } from "../create-probot-engine.ts";
import { GITHUB_REQUEST_TIMEOUT_MS } from "../github/bound-github-fetch.ts";
import { boundOctokit } from "../github/bound-octokit.ts";
import { createGitHubCache } from "../github/github-cache.ts";
import { pacedOctokit } from "../github/paced-octokit.ts";
import { UnthrottledOctokit } from "../github/unthrottled-octokit.ts";
import { createMetrics } from "../metrics/create-metrics.ts";
import { stopsWithGrace } from "../stop-loom.ts";
import { openStore } from "../store/open-store.ts";
import { DrainData, ToDrain, type FromDrain } from "./drain-messages.ts";

/** Probot's LOG_LEVEL values (`silent` included, which pino takes and Probot's type leaves out). */
const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;

async function main(port: NonNullable<typeof parentPort>): Promise<void> {
  const { env, workerId, writeGate } = DrainData.parse(workerData);
  const config = readAppConfig(env);
  const store = await openStore({
    ...(config.databaseUrl === null ? {} : { databaseUrl: config.databaseUrl }),
    sqlitePath: config.sqlitePath,
    // The webhook thread migrated it before starting this one.
    migrate: false,
    writeGate: { shared: writeGate, role: "yield" },
  });
  const halt = new AbortController();
  const stopping = halt.signal;
  // Logs as Probot's `run()` does in the webhook thread: LOG_LEVEL (default info), LOG_FORMAT
  // (default json in production, else pretty).
  const level = LOG_LEVELS.find((l) => l === env["LOG_LEVEL"]) ?? "info";
  const format = env["LOG_FORMAT"] ? (env["LOG_FORMAT"] === "pretty" ? "pretty" : "json") : undefined;
  const probot = createProbot({
    env,
    overrides: {
      // pino takes `silent`; Probot's type lists the others only.
      logLevel: level as Options["logLevel"],
      logFormat: format ?? (env["NODE_ENV"] === "production" ? "json" : "pretty"),
      // Probot's Octokit paced by GitHub's secondary limits (paced-octokit.ts) unless the operator
      // turned the pacing off; either way each request attempt gives up after
      // GITHUB_REQUEST_TIMEOUT_MS and on shutdown (bound-octokit.ts).
      Octokit: boundOctokit(config.githubThrottle ? pacedOctokit({ stopping }) : UnthrottledOctokit, {
        timeoutMs: GITHUB_REQUEST_TIMEOUT_MS,
        stopping,
      }),
    },
  });
  // Probot sets up its logger asynchronously.
  await probot.ready();
  const log = probot.log.child({ name: "loom" });
  const metrics = createMetrics({
    store,
    // Process-wide: the webhook thread serves them.
    defaultMetrics: false,
    onError: (error) => log.warn({ err: error }, "metrics: could not read the store's backlog"),
  });
  const engine = createProbotEngine(probot, {
    store,
    now: () => Date.now(),
    workerId,
    botLogin: config.botLogin,
    serverUrl: config.serverUrl,
    cache: createGitHubCache(),
    stopping,
    metrics,
  });
  const send = (message: FromDrain) => port.postMessage(message);
  const stop = async (graceMs: number) => {
    let ok = true;
    const { abandoned } = await stopsWithGrace(engine, halt)
      .stop(graceMs)
      .catch((error: unknown) => {
        ok = false;
        log.error({ err: error }, "shutdown: could not stop the engine");
        return { abandoned: halt.signal.aborted };
      });
    await store.close().catch((error: unknown) => {
      ok = false;
      log.error({ err: error }, "shutdown: could not close the drain thread's store");
    });
    send({ type: "stopped", ok, abandoned });
    port.close();
  };
  port.on("message", (raw: unknown) => {
    const message = ToDrain.parse(raw);
    switch (message.type) {
      case "news":
        for (const [event, count] of Object.entries(message.received))
          metrics.deliveriesReceived.inc({ event }, count);
        if (message.wake) engine.wake();
        return;
      case "metrics":
        metrics.registry.metrics().then(
          (text) =>
            send({ type: "metrics", id: message.id, contentType: metrics.registry.contentType, text }),
          (error: unknown) => send({ type: "metrics-failed", id: message.id, message: String(error) }),
        );
        return;
      case "stop":
        void stop(message.graceMs);
        return;
    }
  });
  engine.start({ pollMs: config.pollIntervalMs, reconcileMs: config.reconcileIntervalMs });
  send({ type: "ready" });
}

if (parentPort === null)
  throw new Error("app/drain/drain-thread.ts runs as a worker thread (startDrainThread)");
// A failure to start is thrown: the webhook thread gets it as the worker's `error` and stops.
await main(parentPort);
