import type { ProbotOctokit } from "probot";
import type { EffectContext, RepoContext } from "../github/effect-context.ts";
import type { PlanState } from "../../src/orchestrator/state.ts";
import type { EngineDeps } from "./engine-deps.ts";
import type { RepoSettings } from "./stored-plan.ts";

/** The executor's view of one repository. */
export async function buildRepoContext(
  deps: EngineDeps,
  octokit: ProbotOctokit,
  repo: { owner: string; repo: string },
  settings: Pick<RepoSettings, "workflowFile" | "defaultBranch">,
): Promise<RepoContext> {
  const botLogin = await deps.getBotLogin();
  return {
    octokit,
    owner: repo.owner,
    repo: repo.repo,
    config: {
      workflowFile: settings.workflowFile,
      defaultBranch: settings.defaultBranch,
      ...(deps.serverUrl === undefined ? {} : { serverUrl: deps.serverUrl }),
      ...(botLogin === null ? {} : { botLogin }),
    },
    now: deps.now,
    log: deps.log,
    ...(deps.calls === undefined ? {} : { calls: deps.calls }),
    ...(deps.cache === undefined ? {} : { cache: deps.cache }),
    ...(deps.sleep === undefined ? {} : { sleep: deps.sleep }),
  };
}

export function withState(context: RepoContext, state: PlanState, attempt = 1): EffectContext {
  return { ...context, state, attempt };
}
