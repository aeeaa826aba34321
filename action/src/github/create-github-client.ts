import { getOctokit } from "@actions/github";
import { retry } from "@octokit/plugin-retry";

/** The action's GitHub REST client (Octokit with the runner's proxy settings and retries). */
export type GitHubClient = ReturnType<typeof getOctokit>;

/** Attempts after the first when GitHub had a hiccup (network, 429, 5xx). */
export const GITHUB_RETRIES = 2;

export type GitHubClientOptions = {
  token: string;
  /** `GITHUB_API_URL`: `https://api.github.com`, or `https://<host>/api/v3` on GitHub Enterprise Server. */
  apiUrl: string;
  /** Waits 1×, then 4× this before the retries (default 1 s; tests pass 0). */
  retryBaseMs?: number;
};

/**
 * `@actions/github`'s Octokit (it honours the runner's `https_proxy`/`no_proxy`) with
 * `@octokit/plugin-retry`: network errors, 429 and 5xx are tried twice more; 400, 401, 403, 404,
 * 410, 422 and 451 are answers, not hiccups, and are not retried.
 */
export function createGitHubClient(options: GitHubClientOptions): GitHubClient {
  return getOctokit(
    options.token,
    {
      baseUrl: options.apiUrl.replace(/\/+$/, ""),
      userAgent: "loom-action",
      retry: { retries: GITHUB_RETRIES, retryAfterBaseValue: options.retryBaseMs ?? 1_000 },
    },
    retry,
  );
}
