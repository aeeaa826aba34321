/**
 * How long one attempt of a GitHub request may wait for its answer. GitHub ends an API request
 * that takes it more than 10 s itself ("Server Error"; REST API docs, troubleshooting: timeouts),
 * so no answer it would give is lost; a delivery waiting on a GitHub that never answers holds the
 * worker this long, then waits in the inbox for its next attempt.
 */
export const GITHUB_REQUEST_TIMEOUT_MS = 8_000;

/**
 * A request loom abandoned: GitHub could not be reached (connection refused or reset, DNS), did
 * not answer within the timeout, or loom is stopping. Named `AbortError` on purpose:
 * `@octokit/request` 10 rethrows an error of that name as it is (with `status` 500) instead of
 * wrapping it in a `RequestError`, and `@octokit/plugin-retry` 8 retries only `RequestError`s, so
 * an unreachable GitHub costs one attempt, not four with 1 + 4 + 9 s between them. The inbox and
 * the outbox try again later with their own backoff.
 */
export class GitHubUnreachableError extends Error {
  override name = "AbortError";
  /** Set by `@octokit/request` (500, as for any request that got no answer). */
  status?: number;
}

export type BoundFetchOptions = {
  timeoutMs: number;
  /** Aborted when loom stops: every request in flight is abandoned at once. */
  stopping?: AbortSignal;
  fetch?: typeof globalThis.fetch;
};

const bound = new WeakSet<object>();

/** Whether `fetch` came from `boundGitHubFetch` (so an Octokit built from another is not wrapped twice). */
export function isBoundGitHubFetch(fetch: unknown): boolean {
  return typeof fetch === "function" && bound.has(fetch);
}

/**
 * `fetch` for Octokit that gives up on an attempt after `timeoutMs` (only the wait for GitHub
 * counts, not the throttling queue before it) or when `stopping` is aborted, and reports any
 * failure to get an answer as a `GitHubUnreachableError`. Answers, errors included, pass unchanged.
 */
export function boundGitHubFetch(options: BoundFetchOptions): typeof globalThis.fetch {
  const inner = options.fetch ?? globalThis.fetch;
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const signals = [AbortSignal.timeout(options.timeoutMs)];
    if (options.stopping) signals.push(options.stopping);
    if (init?.signal) signals.push(init.signal);
    const signal = AbortSignal.any(signals);
    try {
      return await inner(input, { ...init, signal });
    } catch (error) {
      throw new GitHubUnreachableError(describeFailure(error, options, init?.signal), { cause: error });
    }
  };
  bound.add(fetch);
  return fetch;
}

function describeFailure(
  error: unknown,
  options: BoundFetchOptions,
  own: AbortSignal | null | undefined,
): string {
  if (options.stopping?.aborted) return "GitHub request abandoned: loom is stopping";
  if (own?.aborted) return "GitHub request aborted by its caller";
  if (error instanceof Error && error.name === "TimeoutError")
    return `GitHub did not answer within ${options.timeoutMs / 1000} s`;
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : null;
  const message = error instanceof Error ? error.message : String(error);
  return `GitHub unreachable: ${cause ?? message}`;
}
