import type { ProbotOctokit } from "probot";
import type { Role } from "../../src/config/loom-config.ts";
import type { ForkInfo } from "../../src/orchestrator/events.ts";
import { authorizeSender } from "./authorize-sender.ts";
import type { RepoRef } from "./read-permission.ts";

/** The fields of a pull request that decide whether its plan may run without an approval. */
export type PullTrustInput = {
  author: string;
  /** `comesFromFork(head.repo, repository)`: null when the head is in the repository itself. */
  fork: ForkInfo | null;
};

export type PlanTrust = { trusted: true } | { trusted: false; reason: string };

/**
 * A plan runs on its own only when it comes from a branch of the repository itself and its author
 * has the minimum role. Otherwise it waits for `/loom approve` of a specific head SHA by someone who
 * has (the orchestrator keeps the approval and drops it on a new push).
 */
export async function assessPlanTrust(
  octokit: ProbotOctokit,
  repo: RepoRef,
  pull: PullTrustInput,
  minimumRole: Role,
): Promise<PlanTrust> {
  if (pull.fork !== null) {
    return {
      trusted: false,
      reason:
        pull.fork.repo === null
          ? "the pull request comes from a fork that was deleted"
          : "the pull request comes from a fork",
    };
  }
  const author = await authorizeSender(octokit, repo, pull.author, minimumRole);
  if (!author.authorized) return { trusted: false, reason: author.reason };
  return { trusted: true };
}
