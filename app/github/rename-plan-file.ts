import type { Effect } from "../../src/orchestrator/effects.ts";
import type { OrchestratorEvent } from "../../src/orchestrator/events.ts";
import { withLifecyclePrefix } from "../../src/plan/lifecycle-path.ts";
import { countCall, EffectError, MAX_EFFECT_ATTEMPTS, readStatus, toEffectError } from "./effect-context.ts";
import type { EffectContext } from "./effect-context.ts";

type RenamePlanFile = Extract<Effect, { type: "renamePlanFile" }>;

/**
 * Renames the plan file on the pull request's branch in one commit on the head loom knows: the
 * head commit's tree with the plan's blob moved, a commit on the head, and a fast-forward-only ref
 * update, so a push loom has not seen yet is never overwritten (GitHub answers 422 and the effect
 * runs again on the new head). 4 requests, 3 when loom made the head (its tree is known). Nothing
 * when the file already has the name. A rename that cannot be done (refused, or still failing at
 * the last attempt) is given up with the reason: the plan goes on without it.
 */
export async function renamePlanFile(
  ctx: EffectContext,
  effect: RenamePlanFile,
): Promise<OrchestratorEvent[]> {
  const { state } = ctx;
  const from = state.planFile ?? state.plan.path;
  const to = withLifecyclePrefix(from, effect.prefix);
  if (from === to || state.closed) return [];
  const head = state.pr.headSha;
  try {
    const { sha, tree } = await commitRename(ctx, effect, from, to);
    ctx.log.info({ from, to, sha }, "plan file renamed");
    return [{ type: "planFile.renamed", at: ctx.now(), path: to, sha, parent: head, tree }];
  } catch (error) {
    const failure = error instanceof EffectError ? error : toEffectError(`renaming ${from} to ${to}`, error);
    if (failure.retryable && (ctx.attempt ?? 1) < MAX_EFFECT_ATTEMPTS) throw failure;
    return [{ type: "planFile.renameFailed", at: ctx.now(), reason: failure.message }];
  }
}

async function commitRename(
  ctx: EffectContext,
  effect: RenamePlanFile,
  from: string,
  to: string,
): Promise<{ sha: string; tree: string }> {
  const { state } = ctx;
  const head = state.pr.headSha;
  const where = { owner: ctx.owner, repo: ctx.repo };
  let sha: string;
  let treeSha: string;
  try {
    // The head's tree: known when loom made the head (its merge's or rename's answer), else read.
    let baseTree = state.pr.headTree;
    if (baseTree === undefined) {
      countCall(ctx.calls, effect.type);
      const { data: commit } = await ctx.octokit.rest.git.getCommit({ ...where, commit_sha: head });
      baseTree = commit.tree.sha;
    }
    countCall(ctx.calls, effect.type);
    const { data: tree } = await ctx.octokit.rest.git.createTree({
      ...where,
      base_tree: baseTree,
      tree: [
        { path: to, mode: "100644", type: "blob", sha: state.plan.blobSha },
        { path: from, mode: "100644", type: "blob", sha: null },
      ],
    });
    countCall(ctx.calls, effect.type);
    const done = effect.prefix === "DONE-";
    const { data: created } = await ctx.octokit.rest.git.createCommit({
      ...where,
      message: `loom: ${done ? "every stage of" : "started"} ${state.plan.id}${done ? " is done" : ""}: ${from} → ${to}`,
      tree: tree.sha,
      parents: [head],
    });
    sha = created.sha;
    treeSha = tree.sha;
  } catch (error) {
    throw toEffectError(`renaming ${from} to ${to}`, error);
  }
  try {
    countCall(ctx.calls, effect.type);
    await ctx.octokit.rest.git.updateRef({ ...where, ref: `heads/${state.pr.headRef}`, sha, force: false });
  } catch (error) {
    // Not a fast-forward: someone pushed after the head loom knows. Their push comes first; the
    // rename runs again once loom has seen it.
    if (readStatus(error) === 422)
      throw new EffectError(`renaming ${from}: the pull request's branch moved past ${head.slice(0, 7)}`, {
        status: 422,
        retryable: true,
        cause: error,
      });
    throw toEffectError(`renaming ${from} to ${to}`, error);
  }
  return { sha, tree: treeSha };
}
