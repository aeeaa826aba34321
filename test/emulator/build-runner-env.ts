import { PIPELINES_PREFIX } from "./pipelines-artifact-routes.ts";
import type { RunRecord } from "./emulator-state.ts";

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

/**
 * What GitHub sets for a job of `run`: the `GITHUB_*` context, a job token (`GITHUB_TOKEN`, acting
 * as `github-actions[bot]`), and the runtime token whose `scp` claim carries the run's backend ids,
 * which `@actions/artifact` reads to upload to `ACTIONS_RESULTS_URL` (the emulator).
 * `GITHUB_SERVER_URL` stays github.com: `@actions/artifact` 2+ refuses GHES hosts.
 *
 * With `ghes`, what a GitHub Enterprise Server runner sets instead: `GITHUB_SERVER_URL` is the
 * server's own host, `GITHUB_API_URL` its `/api/v3` and `GITHUB_GRAPHQL_URL` its `/api/graphql`,
 * and there is `ACTIONS_RUNTIME_URL` (the pipelines service, artifact API v3) but no
 * `ACTIONS_RESULTS_URL` (GHES has no results service).
 */
export function buildRunnerEnv(input: {
  url: string;
  run: RunRecord;
  token: string;
  now: number;
  ghes?: boolean;
}): Record<string, string> {
  const { run, url } = input;
  const claims = {
    scp: `Actions.GenericRead:00000000-0000-0000-0000-000000000000 Actions.Results:${run.id}:${run.id}`,
    exp: Math.floor(input.now / 1000) + 6 * 3600,
  };
  const runtimeToken = `${base64url({ typ: "JWT", alg: "none" })}.${base64url(claims)}.emulator`;
  const server: Record<string, string> = input.ghes
    ? { GITHUB_SERVER_URL: url, GITHUB_API_URL: `${url}/api/v3`, GITHUB_GRAPHQL_URL: `${url}/api/graphql` }
    : { GITHUB_SERVER_URL: "https://github.com", GITHUB_API_URL: url, GITHUB_GRAPHQL_URL: `${url}/graphql` };
  const runtime: Record<string, string> = input.ghes
    ? { ACTIONS_RUNTIME_URL: `${url}${PIPELINES_PREFIX}` }
    : { ACTIONS_RUNTIME_URL: `${url}/`, ACTIONS_RESULTS_URL: `${url}/` };
  return {
    CI: "true",
    GITHUB_ACTIONS: "true",
    ...server,
    GITHUB_REPOSITORY: run.repo,
    GITHUB_REPOSITORY_OWNER: run.repo.split("/")[0] ?? "",
    GITHUB_RUN_ID: String(run.id),
    GITHUB_RUN_NUMBER: String(run.id),
    GITHUB_RUN_ATTEMPT: String(run.runAttempt),
    GITHUB_WORKFLOW: run.name,
    GITHUB_WORKFLOW_REF: `${run.repo}/${run.workflowPath}@refs/heads/${run.headBranch}`,
    GITHUB_EVENT_NAME: run.event,
    GITHUB_REF: `refs/heads/${run.headBranch}`,
    GITHUB_REF_NAME: run.headBranch,
    GITHUB_SHA: run.headSha,
    GITHUB_ACTOR: run.actor,
    GITHUB_TRIGGERING_ACTOR: run.actor,
    GITHUB_JOB: "run",
    GITHUB_TOKEN: input.token,
    ACTIONS_RUNTIME_TOKEN: runtimeToken,
    ...runtime,
  };
}
