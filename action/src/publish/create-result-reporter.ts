import type { ResultCheckRun } from "../../../src/artifacts/result-check-run.ts";
import { createGitHubClient } from "../github/create-github-client.ts";

type Env = Record<string, string | undefined>;

/**
 * `reportResult` for the publish job: creates the `loom result` check run (completed, `neutral`:
 * it reports, it does not gate) with the job token; undefined without a token, repository or API
 * URL. The job needs `checks: write` (loom-stage.yml asks for it); without it GitHub answers 403
 * and the App reads the `loom-publish` artifact as before.
 */
export function createResultReporter(
  env: Env,
  token: string,
): ((check: ResultCheckRun, sha: string) => Promise<void>) | undefined {
  const [owner, repo] = (env.GITHUB_REPOSITORY ?? "").split("/");
  const apiUrl = env.GITHUB_API_URL;
  if (token === "" || !owner || !repo || !apiUrl) return undefined;
  const github = createGitHubClient({ token, apiUrl });
  return async (check, sha) => {
    await github.rest.checks.create({
      owner,
      repo,
      name: check.name,
      head_sha: sha,
      status: "completed",
      conclusion: "neutral",
      output: { title: check.title, summary: check.summary, text: check.text },
    });
  };
}
