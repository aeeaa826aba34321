/**
 * `npm start`: the loom GitHub App server. The only file that reads the environment.
 *
 * Without APP_ID / PRIVATE_KEY, Probot serves its setup page on http://localhost:3000, which
 * registers the App from `app.yml` (GitHub's manifest flow) and writes the credentials to `.env`;
 * restart afterwards. With them, it serves webhooks (WEBHOOK_SECRET verifies their signature).
 */
import { hostname } from "node:os";
import { run } from "probot";
import { readAppConfig } from "./config/app-config.ts";
import { createGitHubCache } from "./github/github-cache.ts";
import { UnthrottledOctokit } from "./github/unthrottled-octokit.ts";
import { createLoomApp } from "./index.ts";
import { openStore } from "./store/open-store.ts";

async function main(env: NodeJS.ProcessEnv): Promise<void> {
  const hasCredentials = Boolean(env["APP_ID"]) && Boolean(env["PRIVATE_KEY"] ?? env["PRIVATE_KEY_PATH"]);
  if (!hasCredentials) {
    // Setup mode: Probot serves the manifest flow and never calls the app function.
    await run(() => undefined);
    return;
  }
  const config = readAppConfig(env);
  const store = await openStore({
    ...(config.databaseUrl === null ? {} : { databaseUrl: config.databaseUrl }),
    sqlitePath: config.sqlitePath,
  });
  const server = await run(
    createLoomApp({
      store,
      now: () => Date.now(),
      workerId: config.workerId ?? `${hostname()}:${process.pid}`,
      botLogin: config.botLogin,
      serverUrl: config.serverUrl,
      cache: createGitHubCache(),
      onEngine: (engine) => {
        engine.start({ pollMs: config.pollIntervalMs, reconcileMs: config.reconcileIntervalMs });
        process.once("SIGTERM", () => {
          void engine
            .stop()
            .then(() => server.stop())
            .then(() => store.close())
            .finally(() => process.exit(0));
        });
      },
    }),
    // Probot's own Octokit (throttled) unless the operator turned the pacing off.
    config.githubThrottle ? {} : { Octokit: UnthrottledOctokit },
  );
}

main(process.env).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
