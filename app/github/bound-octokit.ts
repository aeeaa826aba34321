import type { ProbotOctokit } from "probot";
import { boundGitHubFetch, isBoundGitHubFetch, type BoundFetchOptions } from "./bound-github-fetch.ts";

type Options = { request?: Record<string, unknown> } & Record<string, unknown>;

/**
 * `Base` (Probot's Octokit, or `UnthrottledOctokit`) whose every request, the installation token's
 * included (`@octokit/auth-app` asks for it through the client's own `request`), goes through
 * `boundGitHubFetch`: an unreachable or silent GitHub fails an attempt within `timeoutMs`, is not
 * retried by the client, and stopping loom abandons what is in flight. A function default, so
 * the `request` options Probot and the caller give are kept (see `UnthrottledOctokit`).
 */
export function boundOctokit(Base: typeof ProbotOctokit, options: BoundFetchOptions): typeof ProbotOctokit {
  return Base.defaults((given: Options) => {
    const request = given.request ?? {};
    if (isBoundGitHubFetch(request["fetch"])) return given;
    const inner = typeof request["fetch"] === "function" ? (request["fetch"] as typeof fetch) : options.fetch;
    const fetch = boundGitHubFetch({ ...options, ...(inner === undefined ? {} : { fetch: inner }) });
    return { ...given, request: { ...request, fetch } };
  });
}
