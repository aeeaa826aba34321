import type { ProbotOctokit } from "probot";
import type { PlanState } from "../../src/orchestrator/state.ts";
import { countCall, readStatus, toEffectError } from "../github/effect-context.ts";
import type { EngineDeps } from "./engine-deps.ts";
import type { RepoOf } from "./webhook-fields.ts";

const LABEL = "readChangedPaths";

/** GitHub lists at most this many files in a compare (more are left out): a list this long may not be all. */
const COMPARE_FILES_MAX = 300;

/**
 * `changedPaths` for `head.moved` (absent: not looked up); `compared`: what the compare said of the
 * known head (`base`): whether the new head contains it, so `findLostMerges` need not ask again.
 */
export type ChangedPaths = {
  changedPaths?: string[] | null;
  compared?: { base: string; contains: boolean };
};

/**
 * The paths a person's push to `headSha` changed against the head loom knew, for the affected set
 * (`head.moved`'s `changedPaths`): one compare (`<known>...<head>`, the files against their merge
 * base), and only when it can matter: some stage is completed and merged, the push is not loom's
 * own commit, the plan is not a fork's (its stages merge into loom's result branch); a push of one
 * commit with loom's message (`loom: …`) is taken for loom's own (its answer is on its way). Null when
 * GitHub does not list them all (300 files or more) or no longer has the known head (404):
 * every completed stage is affected then, and the plan's check run says why.
 */
export async function readChangedPaths(
  deps: EngineDeps,
  octokit: ProbotOctokit,
  repo: RepoOf,
  state: PlanState,
  headSha: string,
): Promise<ChangedPaths> {
  if (state.fork || (state.loomHeads ?? []).includes(headSha) || headSha === state.pr.headSha) return {};
  const merged = state.order.some((id) => {
    const stage = state.stages[id];
    return stage !== undefined && !stage.removed && stage.status === "completed" && stage.merged;
  });
  if (!merged) return {};
  countCall(deps.calls, LABEL);
  try {
    const { data } = await octokit.rest.repos.compareCommitsWithBasehead({
      owner: repo.owner,
      repo: repo.repo,
      basehead: `${state.pr.headSha}...${headSha}`,
      per_page: 1,
    });
    const compared = {
      base: state.pr.headSha,
      contains: data.status === "ahead" || data.status === "identical",
    };
    // One commit whose message is loom's (a stage's merge, a rename): most likely loom's own push
    // whose answer has not been recorded yet; the reducer drops what it affected once it is.
    // Read without trusting the shape (GitHub's schema lists them; nothing here may fail on it).
    const [only] = (data as { commits?: typeof data.commits }).commits ?? [];
    if (data.ahead_by === 1 && only?.commit.message.startsWith("loom: ") === true) return { compared };
    const files = data.files;
    if (files === undefined || files.length >= COMPARE_FILES_MAX) return { changedPaths: null, compared };
    return {
      changedPaths: files.flatMap((file) =>
        file.previous_filename === undefined ? [file.filename] : [file.filename, file.previous_filename],
      ),
      compared,
    };
  } catch (error) {
    if (readStatus(error) === 404) return { changedPaths: null };
    throw toEffectError(`comparing ${state.pr.headSha.slice(0, 7)} with the pull request's head`, error);
  }
}
