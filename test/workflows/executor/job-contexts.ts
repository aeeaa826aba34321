import type { RunRecord } from "../../emulator/emulator-state.ts";
import type { Value } from "./evaluate-template.ts";
import type { RunnerSpec } from "./runs-on.ts";

/** The `github` context of a `workflow_dispatch` run, from what GitHub set for its jobs (`runnerEnv`). */
export function buildGithubContext(
  run: RunRecord,
  vars: Readonly<Record<string, string>>,
): Record<string, Value> {
  const v = (name: string): string => vars[name] ?? "";
  return {
    action: "",
    actor: v("GITHUB_ACTOR"),
    api_url: v("GITHUB_API_URL"),
    event: { inputs: run.inputs, ref: v("GITHUB_REF"), workflow: run.workflowPath },
    event_name: run.event,
    graphql_url: v("GITHUB_GRAPHQL_URL"),
    ref: v("GITHUB_REF"),
    ref_name: v("GITHUB_REF_NAME"),
    ref_type: "branch",
    repository: run.repo,
    repository_owner: v("GITHUB_REPOSITORY_OWNER"),
    retention_days: "90",
    run_attempt: v("GITHUB_RUN_ATTEMPT"),
    run_id: v("GITHUB_RUN_ID"),
    run_number: v("GITHUB_RUN_NUMBER"),
    secret_source: "Actions",
    server_url: v("GITHUB_SERVER_URL"),
    sha: v("GITHUB_SHA"),
    triggering_actor: v("GITHUB_TRIGGERING_ACTOR"),
    workflow: v("GITHUB_WORKFLOW"),
    workflow_ref: v("GITHUB_WORKFLOW_REF"),
    workflow_sha: v("GITHUB_SHA"),
  };
}

/** The folders of a job on its runner. */
export type JobDirs = {
  root: string;
  workspace: string;
  temp: string;
  home: string;
  files: string;
  toolCache: string;
};

/** The `runner` context and the RUNNER_* variables of a job on `runner`. */
export function describeRunner(
  runner: RunnerSpec,
  dirs: JobDirs,
): { context: Record<string, Value>; env: Record<string, string> } {
  const env = {
    RUNNER_NAME: runner.name,
    RUNNER_OS: "Linux",
    RUNNER_ARCH: "X64",
    RUNNER_ENVIRONMENT: runner.environment,
    RUNNER_TEMP: dirs.temp,
    RUNNER_TOOL_CACHE: dirs.toolCache,
    RUNNER_WORKSPACE: dirs.root,
  };
  return {
    env,
    context: {
      name: runner.name,
      os: "Linux",
      arch: "X64",
      environment: runner.environment,
      temp: dirs.temp,
      tool_cache: dirs.toolCache,
      debug: "",
    },
  };
}
