import type { ProbotOctokit } from "probot";
import { publishPlanErrors } from "../github/publish-plan-errors.ts";
import type { Diagnostic } from "../../src/plan/plan.ts";
import { buildRepoContext } from "./build-repo-context.ts";
import type { EngineDeps } from "./engine-deps.ts";
import type { RepoOf } from "./webhook-fields.ts";

/**
 * An invalid plan (or an invalid `.github/loom.yml`): a failing plan check run with annotations at
 * the plan's lines. Nothing is recorded for the plan, so nothing is dispatched.
 */
export async function reportPlanErrors(
  deps: EngineDeps,
  octokit: ProbotOctokit,
  repo: RepoOf,
  pull: { head: { sha: string } },
  planPath: string,
  errors: readonly Diagnostic[],
  warnings: readonly Diagnostic[],
): Promise<void> {
  const context = await buildRepoContext(deps, octokit, repo, {
    workflowFile: "",
    defaultBranch: repo.defaultBranch,
  });
  await publishPlanErrors(context, { headSha: pull.head.sha, planPath, errors, warnings });
  deps.log.info({ planPath, errors: errors.length }, "invalid plan reported on its check run");
}
