import { ProbotOctokit } from "probot";

type Options = { throttle?: Record<string, unknown> } & Record<string, unknown>;

/**
 * Probot's Octokit without any client-side pacing (neither loom's limiter nor the plugin's one
 * write a second), for `LOOM_GITHUB_THROTTLE=off`. A function default on purpose: an object default
 * (`{ throttle: { enabled: false } }`) is merged shallowly under the `throttle` options Probot
 * gives every instance, and lost.
 */
export const UnthrottledOctokit = ProbotOctokit.defaults((options: Options) => ({
  ...options,
  throttle: { ...options.throttle, enabled: false },
}));
