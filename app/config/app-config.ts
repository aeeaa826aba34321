import { z } from "zod";
import { defaultSqlitePath } from "../store/default-sqlite-path.ts";

/**
 * The server's own settings, from the environment (see `.env.example`). Probot reads its own
 * (APP_ID, PRIVATE_KEY, WEBHOOK_SECRET, LOG_LEVEL, REDIS_URL, PORT, HOST…) itself.
 */
export const AppConfig = z.object({
  /** PostgreSQL connection string; when set, replicas share it. Otherwise SQLite. */
  databaseUrl: z.string().min(1).nullable(),
  /** The SQLite file used when no DATABASE_URL is set (`LOOM_SQLITE_PATH`, default `data/loom.sqlite`). */
  sqlitePath: z.string().min(1),
  /** How often every active plan is re-read from GitHub. */
  reconcileIntervalMs: z.number().int().min(1000),
  /** How often the inbox, outbox and timers are polled (webhooks also wake the worker at once). */
  pollIntervalMs: z.number().int().min(100),
  /** loom's own bot login (`<app-slug>[bot]`); read from `GET /app` when unset. */
  botLogin: z.string().min(1).nullable(),
  /**
   * Name of this replica in leases; defaults to host and process id. Unique per replica, and best
   * stable across restarts: a worker starting under its old name takes back at once the work its
   * dead predecessor had leased.
   */
  workerId: z.string().min(1).nullable(),
  /**
   * loom's client-side pacing (`paced-octokit.ts`): writes within GitHub's secondary limits (80 a
   * minute per installation), waiting out a secondary rate limit's `retry-after`. Off
   * only where GitHub limits nothing, e.g. GitHub Enterprise Server with rate limiting disabled
   * (its default).
   */
  githubThrottle: z.boolean(),
  /**
   * Where people open GitHub, for the links loom writes in check runs and comments:
   * `https://github.com`, or the GitHub Enterprise Server host Probot talks to (`GHE_HOST`).
   */
  serverUrl: z.url(),
  /**
   * Where `GET /metrics` is served. Safe by default: nowhere until the operator says. `port`
   * (`METRICS_PORT`): a port of its own on `host` (`METRICS_HOST`, default 127.0.0.1), and not on
   * the webhook port. `token` (`METRICS_TOKEN`): only to `Authorization: Bearer <token>`; on the
   * webhook port when no `port` is given, on that port too when it is.
   */
  metrics: z.object({
    port: z.number().int().min(1).max(65_535).nullable(),
    host: z.string().min(1),
    token: z.string().min(16).nullable(),
  }),
});
export type AppConfig = z.infer<typeof AppConfig>;

const Seconds = z.coerce.number().positive();

/** Reads the app's settings from an environment; refuses bad values with a clear message. */
export function readAppConfig(env: Record<string, string | undefined>): AppConfig {
  const reconcile = Seconds.safeParse(env["LOOM_RECONCILE_INTERVAL_SECS"] ?? "60");
  const poll = Seconds.safeParse(env["LOOM_POLL_INTERVAL_SECS"] ?? "5");
  if (!reconcile.success)
    throw new Error("LOOM_RECONCILE_INTERVAL_SECS must be a positive number of seconds");
  if (!poll.success) throw new Error("LOOM_POLL_INTERVAL_SECS must be a positive number of seconds");
  const throttle = (env["LOOM_GITHUB_THROTTLE"] ?? "on").trim().toLowerCase();
  if (throttle !== "on" && throttle !== "off") throw new Error("LOOM_GITHUB_THROTTLE must be on or off");
  return AppConfig.parse({
    databaseUrl: nonEmpty(env["DATABASE_URL"]),
    sqlitePath: nonEmpty(env["LOOM_SQLITE_PATH"]) ?? defaultSqlitePath,
    reconcileIntervalMs: Math.round(reconcile.data * 1000),
    pollIntervalMs: Math.round(poll.data * 1000),
    botLogin: nonEmpty(env["LOOM_BOT_LOGIN"]),
    workerId: nonEmpty(env["LOOM_WORKER_ID"]),
    githubThrottle: throttle === "on",
    serverUrl: readServerUrl(env),
    metrics: readMetricsConfig(env),
  });
}

function readMetricsConfig(env: Record<string, string | undefined>): AppConfig["metrics"] {
  const port = nonEmpty(env["METRICS_PORT"]);
  if (port !== null && !/^\d{1,5}$/.test(port)) throw new Error("METRICS_PORT must be a port number");
  if (port !== null && (Number(port) < 1 || Number(port) > 65_535))
    throw new Error("METRICS_PORT must be between 1 and 65535");
  const token = nonEmpty(env["METRICS_TOKEN"]);
  if (token !== null && (token.length < 16 || /\s/.test(token)))
    throw new Error(
      "METRICS_TOKEN must be at least 16 characters, without spaces (e.g. `openssl rand -hex 24`)",
    );
  return {
    port: port === null ? null : Number(port),
    host: nonEmpty(env["METRICS_HOST"]) ?? "127.0.0.1",
    token,
  };
}

function nonEmpty(value: string | undefined): string | null {
  return value === undefined || value.trim() === "" ? null : value.trim();
}

/** Probot's own reading of `GHE_HOST` / `GHE_PROTOCOL`, without its `/api/v3` API path. */
function readServerUrl(env: Record<string, string | undefined>): string {
  const host = nonEmpty(env["GHE_HOST"]);
  if (host === null) return "https://github.com";
  const protocol = nonEmpty(env["GHE_PROTOCOL"]) ?? "https";
  if (protocol !== "http" && protocol !== "https") throw new Error("GHE_PROTOCOL must be http or https");
  if (!/^[A-Za-z0-9.-]+(:\d+)?$/.test(host)) throw new Error(`GHE_HOST "${host}" is not a host name`);
  return `${protocol}://${host}`;
}
