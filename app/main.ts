/**
 * `npm start` (through `app/start.js`, which refuses Node.js older than 24): the loom GitHub App
 * server. The only file that reads the environment.
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
import { readAppConfig } from "./config/app-config.ts";
import { GITHUB_REQUEST_TIMEOUT_MS } from "./github/bound-github-fetch.ts";
import { boundOctokit } from "./github/bound-octokit.ts";
import { createGitHubCache } from "./github/github-cache.ts";
import { pacedOctokit } from "./github/paced-octokit.ts";
import { UnthrottledOctokit } from "./github/unthrottled-octokit.ts";
import { createLoomApp } from "./index.ts";
import { guardWebhookServers } from "./refuse-unsigned-webhooks.ts";
import { acceptWebhooksAtRoot } from "./setup/accept-webhooks-at-root.ts";
import { hasAppCredentials } from "./setup/has-app-credentials.ts";
import { loadEnvFile } from "./setup/load-env-file.ts";
import { serveSetup } from "./setup/serve-setup.ts";
import { shutdownOnSignals } from "./shutdown-on-signals.ts";
import { consoleShutdownLog, stopLoom, type RunningLoom } from "./stop-loom.ts";
import { openStore } from "./store/open-store.ts";
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
  const store = await openStore({
    ...(config.databaseUrl === null ? {} : { databaseUrl: config.databaseUrl }),
    sqlitePath: config.sqlitePath,
  });
  // SIGINT and SIGTERM drain whatever of it is up by then (app/shutdown-on-signals.ts); `halt`
  // abandons GitHub requests still in flight once the drain's grace has passed (stop-loom.ts).
  const halt = new AbortController();
  const stopping = halt.signal;
  const loom: RunningLoom = {
    store,
    workerId: config.workerId ?? `${hostname()}:${process.pid}`,
    engine: null,
    server: null,
    log: null,
    halt,
  };
  const shutdown = shutdownOnSignals({
    target: process,
    log: () => loom.log ?? consoleShutdownLog,
    stop: () => stopLoom(loom, loom.log ?? consoleShutdownLog),
    exit: (code) => process.exit(code),
  });
  const loomApp = createLoomApp({
    store,
    now: () => Date.now(),
    workerId: loom.workerId,
    botLogin: config.botLogin,
    serverUrl: config.serverUrl,
    cache: createGitHubCache(),
    stopping,
    onEngine: (engine) => {
      engine.start({ pollMs: config.pollIntervalMs, reconcileMs: config.reconcileIntervalMs });
      loom.engine = engine;
    },
  });
  const server = await run(
    async (app, options) => {
      loom.log = app.log;
      logs.current = app.log;
      await loomApp(app, options);
      options.addHandler(await acceptWebhooksAtRoot(app));
    },
    // Probot's Octokit paced by GitHub's secondary limits (paced-octokit.ts) unless the operator
    // turned the pacing off; either way each request attempt gives up after
    // GITHUB_REQUEST_TIMEOUT_MS and on shutdown (bound-octokit.ts).
    {
      Octokit: boundOctokit(config.githubThrottle ? pacedOctokit({ stopping }) : UnthrottledOctokit, {
        timeoutMs: GITHUB_REQUEST_TIMEOUT_MS,
        stopping,
      }),
    },
  );
  loom.server = server;
  shutdown.takeOver();
}

function fail(error: unknown): void {
  if (error instanceof StartError || error instanceof SchemaTooNewError)
    console.error(`loom: ${error.message}`);
  else console.error(error);
  process.exit(1);
}

main(process.env).catch(fail);
