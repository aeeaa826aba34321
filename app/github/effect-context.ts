import type { Logger, ProbotOctokit } from "probot";
import type { PlanState } from "../../src/orchestrator/state.ts";
import type { GitHubCache } from "./github-cache.ts";

/** Settings the executor needs beyond the plan state. */
export type EffectConfig = {
  /** File name of the caller workflow in `.github/workflows/` that loom dispatches (e.g. `loom.yml`). */
  workflowFile: string;
  /** The repository's default branch, when already known (saves a `GET /repos/{o}/{r}`). */
  defaultBranch?: string;
  /** `https://github.com` unless GitHub Enterprise Server. For links in check runs and comments. */
  serverUrl?: string;
  /** Login of loom's bot user (`<app-slug>[bot]`): only its comments are taken as the status comment. */
  botLogin?: string;
};

/** API calls made, in total and per effect type or reader, for benchmarks and logs. */
export type ApiCalls = { total: number; notModified: number; by: Record<string, number> };

export function createApiCalls(): ApiCalls {
  return { total: 0, notModified: 0, by: {} };
}

/** One repository and the means to talk to it: what readers and `publishPlanErrors` need. */
export type RepoContext = {
  octokit: ProbotOctokit;
  owner: string;
  repo: string;
  config: EffectConfig;
  now: () => number;
  log: Pick<Logger, "info" | "warn" | "error" | "debug">;
  /** Counted here when given. */
  calls?: ApiCalls;
  /** Remembers ids and ETags between effects (one per process); optional. */
  cache?: GitHubCache;
  /** Waits between bounded look-ups (tests pass an instant one). Default: a real timer. */
  sleep?: (ms: number) => Promise<void>;
};

/** What the run readers need: a subset of `RepoContext` (an `EffectContext` will do). */
export type ReaderContext = Pick<RepoContext, "octokit" | "owner" | "repo" | "calls" | "cache">;

/**
 * What an effect runs with: the repository, the plan's state the effect was decided on, and which
 * claim of the outbox entry this is (above 1, an earlier claim may have done part of the work).
 */
export type EffectContext = RepoContext & { state: PlanState; attempt?: number };

/** Records one API call under `label` (an effect type or reader name). */
export function countCall(calls: ApiCalls | undefined, label: string): void {
  if (!calls) return;
  calls.total++;
  calls.by[label] = (calls.by[label] ?? 0) + 1;
}

/**
 * A GitHub call failed in a way the effect could not absorb. `retryable` says whether running the
 * same effect again later is safe and may help (rate limits, 5xx, network); the outbox decides when.
 */
/** Attempts for an effect that fails in a retryable way, then it is given up (dead). */
export const MAX_EFFECT_ATTEMPTS = 5;

export class EffectError extends Error {
  readonly status: number | null;
  readonly retryable: boolean;
  constructor(message: string, options: { status: number | null; retryable: boolean; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = "EffectError";
    this.status = options.status;
    this.retryable = options.retryable;
  }
}

/** The HTTP status of an Octokit `RequestError`, or null for anything else (network, bug). */
export function readStatus(error: unknown): number | null {
  if (typeof error === "object" && error !== null && "status" in error && typeof error.status === "number") {
    return error.status;
  }
  return null;
}

/** GitHub's `message` from an error response, else the error's own message. */
export function readErrorMessage(error: unknown): string {
  if (typeof error === "object" && error !== null && "response" in error) {
    const data = (error as { response?: { data?: unknown } }).response?.data;
    if (typeof data === "object" && data !== null && "message" in data && typeof data.message === "string") {
      return data.message;
    }
  }
  return error instanceof Error ? error.message : String(error);
}

/** Wraps an unexpected failure; 5xx, 429, rate-limit 403 and network errors are retryable. */
export function toEffectError(what: string, error: unknown): EffectError {
  const status = readStatus(error);
  const retryable = status === null || status >= 500 || status === 429 || isRateLimited(error);
  return new EffectError(`${what}: ${status ?? "network error"} ${readErrorMessage(error)}`, {
    status,
    retryable,
    cause: error,
  });
}

function isRateLimited(error: unknown): boolean {
  if (readStatus(error) !== 403) return false;
  const headers = (error as { response?: { headers?: Record<string, string | undefined> } }).response
    ?.headers;
  return headers?.["x-ratelimit-remaining"] === "0" || headers?.["retry-after"] !== undefined;
}

/** `https://github.com/<owner>/<repo>` (or the Enterprise server's). */
export function getRepoUrl(ctx: Pick<RepoContext, "owner" | "repo" | "config">): string {
  return `${ctx.config.serverUrl ?? "https://github.com"}/${ctx.owner}/${ctx.repo}`;
}

export function sleepFor(ctx: RepoContext, ms: number): Promise<void> {
  if (ctx.sleep) return ctx.sleep(ms);
  return new Promise((resolve) => setTimeout(resolve, ms));
}
