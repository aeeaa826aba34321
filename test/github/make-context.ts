import { ProbotOctokit } from "probot";
import type { EffectContext } from "../../app/github/effect-context.ts";
import { createApiCalls } from "../../app/github/effect-context.ts";
import { createGitHubCache } from "../../app/github/github-cache.ts";
import type { PlanState } from "../../src/orchestrator/state.ts";
import { T0 } from "../status/make-plan-state.ts";

const TestOctokit = ProbotOctokit.defaults({ retry: { enabled: false }, throttle: { enabled: false } });
/** Probot's default Octokit with its retry plugin ON: to prove merges and dispatches opt out of it. */
const RetryingOctokit = ProbotOctokit.defaults({ throttle: { enabled: false } });

export function makeRetryingOctokit(): EffectContext["octokit"] {
  return new RetryingOctokit({ auth: "test-token" });
}

export type LogLine = { level: string; data: unknown; message: string };

/** An effect context on `octo/repo` with a test Octokit (no retries, no throttling), a cache and a log. */
export function makeContext(
  state: PlanState,
  overrides: Partial<EffectContext> = {},
): EffectContext & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const write = (level: string) => (data: unknown, message?: string) => {
    lines.push({ level, data, message: message ?? "" });
  };
  return {
    octokit: new TestOctokit({ auth: "test-token" }),
    owner: "octo",
    repo: "repo",
    state,
    config: { workflowFile: "loom.yml", defaultBranch: "main" },
    now: () => T0 + 600_000,
    log: { info: write("info"), warn: write("warn"), error: write("error"), debug: write("debug") } as never,
    calls: createApiCalls(),
    cache: createGitHubCache(),
    sleep: () => Promise.resolve(),
    lines,
    ...overrides,
  };
}
