import type { LoomMetrics } from "./create-metrics.ts";

/** The part of an Octokit instance the hooks need (`octokit.hook` of before-after-hook). */
type Hookable = {
  hook: {
    after(name: "request", hook: (response: Response, options: Options) => void): void;
    error(name: "request", hook: (error: unknown, options: Options) => unknown): void;
  };
};
type Options = { method?: string };
type Response = { status: number; headers: Record<string, unknown> };

const observed = new WeakSet<object>();

/**
 * Counts every request `octokit` makes (by method and status class) and keeps the rate limit left
 * from each response's `x-ratelimit-remaining`, for `installation` (an id, or `app` for the App's
 * own client). Hooked once per instance: Probot gives a new instance per installation `auth`, and
 * the same one for the App itself. The hooks sit outside the retry and throttling plugins, so a
 * retried request counts once, with its final status.
 */
export function observeOctokit<T extends object>(octokit: T, metrics: LoomMetrics, installation: string): T {
  if (observed.has(octokit) || !isHookable(octokit)) return octokit;
  observed.add(octokit);
  octokit.hook.after("request", (response, options) => {
    count(metrics, installation, options, response.status, response.headers);
  });
  octokit.hook.error("request", (error, options) => {
    const response = readErrorResponse(error);
    count(metrics, installation, options, response?.status ?? null, response?.headers ?? {});
    throw error;
  });
  return octokit;
}

function count(
  metrics: LoomMetrics,
  installation: string,
  options: Options,
  status: number | null,
  headers: Record<string, unknown>,
): void {
  const method = (options.method ?? "GET").toUpperCase();
  metrics.githubRequests.inc({ method, status: status === null ? "error" : `${Math.floor(status / 100)}xx` });
  const remaining = Number(headers["x-ratelimit-remaining"]);
  if (headers["x-ratelimit-remaining"] !== undefined && Number.isFinite(remaining))
    metrics.rateLimitRemaining.set({ installation }, remaining);
}

/** Octokit's `RequestError` carries the response (status, headers); a network error has none. */
function readErrorResponse(error: unknown): Response | null {
  if (typeof error !== "object" || error === null || !("response" in error)) return null;
  const response = error.response;
  if (typeof response !== "object" || response === null) return null;
  const status = "status" in response && typeof response.status === "number" ? response.status : null;
  const headers = "headers" in response && typeof response.headers === "object" ? response.headers : {};
  return status === null ? null : { status, headers: (headers ?? {}) as Record<string, unknown> };
}

function isHookable(value: object): value is Hookable {
  const hook = (value as { hook?: unknown }).hook;
  return (
    (typeof hook === "function" || typeof hook === "object") &&
    hook !== null &&
    typeof (hook as { after?: unknown }).after === "function" &&
    typeof (hook as { error?: unknown }).error === "function"
  );
}
