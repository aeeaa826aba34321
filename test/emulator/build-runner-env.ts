import type { RunRecord } from "./emulator-state.ts";

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

/**
 * What GitHub sets for a job of `run`: the `GITHUB_*` context, a job token (`GITHUB_TOKEN`, acting
 * as `github-actions[bot]`), and the runtime token whose `scp` claim carries the run's backend ids,
 * which `@actions/artifact` reads to upload to `ACTIONS_RESULTS_URL` (the emulator).
 * `GITHUB_SERVER_URL` stays github.com: `@actions/artifact` refuses GHES hosts.
 */
export function buildRunnerEnv(input: {
  url: string;
  run: RunRecord;
  token: string;
  now: number;
}): Record<string, string> {
  const { run, url } = input;
  const claims = {
    scp: `Actions.GenericRead:00000000-0000-0000-0000-000000000000 Actions.Results:${run.id}:${run.id}`,
    exp: Math.floor(input.now / 1000) + 6 * 3600,
  };
  const runtimeToken = `${base64url({ typ: "JWT", alg: "none" })}.${base64url(claims)}.emulator`;
  return {
    CI: "true",
    GITHUB_ACTIONS: "true",
    GITHUB_SERVER_URL: "https://github.com",
    GITHUB_API_URL: url,
    GITHUB_GRAPHQL_URL: `${url}/graphql`,
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
    ACTIONS_RUNTIME_URL: `${url}/`,
    ACTIONS_RESULTS_URL: `${url}/`,
  };
}
