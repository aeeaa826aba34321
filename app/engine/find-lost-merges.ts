import type { ProbotOctokit } from "probot";
import type { OrchestratorEvent } from "../../src/orchestrator/events.ts";
import type { PlanState } from "../../src/orchestrator/state.ts";
import { countCall, readStatus, toEffectError } from "../github/effect-context.ts";
import type { EngineDeps } from "./engine-deps.ts";
import type { RepoOf } from "./webhook-fields.ts";

const LABEL = "checkMerged";

/**
 * The merged stages whose commit the pull request's new head `headSha` no longer contains (a
 * force-push rewrote the branch), as `merge.lost` events for the reducer. A head that is loom's
 * own merge costs nothing; any other push costs one compare (the newest head loom made or knew
 * against the new one): when the new head still descends from it, every merged stage is still
 * in. Only when history was rewritten is each merged stage's commit compared. Fork plans cost
 * nothing: their stages are merged into loom's result branch, which a push to the fork leaves alone.
 * `compared`: a compare of the same head already made (`readChangedPaths`), not asked again.
 */
export async function findLostMerges(
  deps: EngineDeps,
  octokit: ProbotOctokit,
  repo: RepoOf,
  state: PlanState,
  headSha: string,
  compared?: { base: string; contains: boolean },
): Promise<OrchestratorEvent[]> {
  const merged = state.order.flatMap((id) => {
    const stage = state.stages[id];
    return stage?.merged && stage.mergedSha ? [{ stageId: id, sha: stage.mergedSha }] : [];
  });
  // A fork plan merges into its result branch in the base repository, never into the fork's head:
  // a push to the fork cannot remove a merged stage.
  if (state.fork) return [];
  if (merged.length === 0 || (state.loomHeads ?? []).includes(headSha)) return [];
  // The compare that read the push's changed paths answered for the known head already.
  const contains = async (sha: string) =>
    compared?.base === sha ? compared.contains : headContains(deps, octokit, repo, headSha, sha);
  if (await contains(state.loomHeads?.at(-1) ?? state.pr.headSha)) return [];
  const events: OrchestratorEvent[] = [];
  for (const { stageId, sha } of merged) {
    if (!(await contains(sha))) events.push({ type: "merge.lost", at: deps.now(), stageId, headSha, sha });
  }
  if (events.length > 0)
    deps.log.warn({ headSha, stages: events.length }, "a push removed merged stages from the pull request");
  return events;
}

/**
 * Whether `sha` is `head` or one of its ancestors: GitHub's compare of `sha...head` says `ahead` or
 * `identical`. A commit GitHub no longer has (404) is not contained; any other failure throws, so
 * the delivery is tried again rather than a stage judged on no answer.
 */
export async function headContains(
  deps: EngineDeps,
  octokit: ProbotOctokit,
  repo: RepoOf,
  head: string,
  sha: string,
): Promise<boolean> {
  if (head === sha) return true;
  countCall(deps.calls, LABEL);
  try {
    const { data } = await octokit.rest.repos.compareCommitsWithBasehead({
      owner: repo.owner,
      repo: repo.repo,
      basehead: `${sha}...${head}`,
      per_page: 1,
    });
    return data.status === "ahead" || data.status === "identical";
  } catch (error) {
    if (readStatus(error) === 404) return false;
    throw toEffectError(`comparing ${sha.slice(0, 7)} with the pull request's head`, error);
  }
}
