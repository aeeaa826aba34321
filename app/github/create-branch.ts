import type { Effect } from "../../src/orchestrator/effects.ts";
import type { OrchestratorEvent } from "../../src/orchestrator/events.ts";
import { countCall, EffectError, readStatus, toEffectError } from "./effect-context.ts";
import type { EffectContext } from "./effect-context.ts";

type CreateBranch = Extract<Effect, { type: "createBranch" }>;

/** The head SHA of `branch`, or null when it does not exist. */
export async function readBranchHead(
  ctx: EffectContext,
  label: string,
  branch: string,
): Promise<string | null> {
  countCall(ctx.calls, label);
  try {
    const { data } = await ctx.octokit.rest.git.getRef({
      owner: ctx.owner,
      repo: ctx.repo,
      ref: `heads/${branch}`,
    });
    return data.object.sha;
  } catch (error) {
    if (readStatus(error) === 404) return null;
    throw toEffectError(`reading branch ${branch}`, error);
  }
}

/**
 * Makes sure the stage branch exists before a retry's run: a branch an earlier attempt's publish
 * job pushed (the usual case: 1 request) is kept as it is; a missing one (the first attempt ended
 * before publishing) is created at the merge point's current head. A branch created concurrently
 * is kept too: GitHub answers 422 "Reference already exists" and the branch is there. Before a
 * stage's first run (`first`: a caller of an older stage workflow) no branch is expected and none
 * is looked for: 2 requests (the merge point's head, the create), as loom 0.3 made; a claim after a
 * failed one looks first.
 */
export async function createBranch(ctx: EffectContext, effect: CreateBranch): Promise<OrchestratorEvent[]> {
  if (effect.reset === true) return resetBranch(ctx, effect);
  const looks = effect.first !== true || (ctx.attempt ?? 2) > 1;
  if (looks && (await readBranchHead(ctx, effect.type, effect.branch)) !== null) return [];
  const sha = await readMergePointHead(ctx, effect);
  countCall(ctx.calls, effect.type);
  try {
    await ctx.octokit.rest.git.createRef({
      owner: ctx.owner,
      repo: ctx.repo,
      ref: `refs/heads/${effect.branch}`,
      sha,
    });
  } catch (error) {
    if (readStatus(error) !== 422 || (await readBranchHead(ctx, effect.type, effect.branch)) === null) {
      throw toEffectError(`creating branch ${effect.branch}`, error);
    }
  }
  ctx.log.info({ branch: effect.branch, sha }, "stage branch created");
  return [];
}

/** The merge point's head commit (1 request); a missing merge point is no retry's to fix. */
async function readMergePointHead(ctx: EffectContext, effect: CreateBranch): Promise<string> {
  const sha = await readBranchHead(ctx, effect.type, effect.from);
  if (sha === null) {
    throw new EffectError(`merge point ${effect.from} is missing`, { status: 404, retryable: false });
  }
  return sha;
}

/**
 * A completed stage runs again on the current head: its branch is moved to the merge point's head
 * (2 requests: the merge point's head, the update; its earlier work is merged there, so nothing of
 * it is lost), or created there when it is gone (1 more).
 */
async function resetBranch(ctx: EffectContext, effect: CreateBranch): Promise<OrchestratorEvent[]> {
  const sha = await readMergePointHead(ctx, effect);
  countCall(ctx.calls, effect.type);
  try {
    await ctx.octokit.rest.git.updateRef({
      owner: ctx.owner,
      repo: ctx.repo,
      ref: `heads/${effect.branch}`,
      sha,
      force: true,
    });
  } catch (error) {
    const status = readStatus(error);
    if (status !== 404 && status !== 422) throw toEffectError(`moving branch ${effect.branch}`, error);
    countCall(ctx.calls, effect.type);
    try {
      await ctx.octokit.rest.git.createRef({
        owner: ctx.owner,
        repo: ctx.repo,
        ref: `refs/heads/${effect.branch}`,
        sha,
      });
    } catch (createError) {
      throw toEffectError(`creating branch ${effect.branch}`, createError);
    }
  }
  ctx.log.info({ branch: effect.branch, sha }, "stage branch moved to the merge point for a re-run");
  return [];
}
