import type { Probot, ProbotOctokit } from "probot";
import { createEngine } from "./engine/create-engine.ts";
import type { Engine } from "./engine/create-engine.ts";
import type { EngineDeps } from "./engine/engine-deps.ts";
import type { LoomMetrics } from "./metrics/create-metrics.ts";
import { observeOctokit } from "./metrics/observe-octokit.ts";

export type ProbotEngineOptions = Omit<EngineDeps, "getOctokit" | "getBotLogin" | "log" | "metrics"> & {
  /** loom's bot login; read from `GET /app` (once) when not given. */
  botLogin?: string | null;
  metrics: LoomMetrics;
};

/**
 * The engine working with `probot`'s Octokits (the installation's, and the App's own for its
 * login) and logger, every request counted into `metrics`. The same in both places it runs: beside
 * the webhook handlers (`createLoomApp`) and in the drain thread (`npm start`).
 */
export function createProbotEngine(probot: Probot, options: ProbotEngineOptions): Engine {
  const { metrics } = options;
  return createEngine({
    ...options,
    log: probot.log.child({ name: "loom" }),
    getOctokit: async (installationId) =>
      observeOctokit(await probot.auth(installationId), metrics, String(installationId)),
    getBotLogin: memoizeBotLogin(probot, options.botLogin, (octokit) =>
      observeOctokit(octokit, metrics, "app"),
    ),
  });
}

function memoizeBotLogin(
  probot: Probot,
  given: string | null | undefined,
  observe: (octokit: ProbotOctokit) => ProbotOctokit,
): () => Promise<string | null> {
  if (given !== undefined && given !== null) return () => Promise.resolve(given);
  let known: Promise<string | null> | null = null;
  return () => {
    known ??= probot
      .auth()
      .then((octokit) => observe(octokit).rest.apps.getAuthenticated())
      .then(({ data }) => (data?.slug ? `${data.slug}[bot]` : null))
      .catch((error: unknown) => {
        probot.log.warn({ err: error }, "could not read the app's slug; set LOOM_BOT_LOGIN");
        known = null;
        return null;
      });
    return known;
  };
}
