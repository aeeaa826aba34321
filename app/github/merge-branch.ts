import type { Effect } from "../../src/orchestrator/effects.ts";
import type { MergeOutcome, OrchestratorEvent } from "../../src/orchestrator/events.ts";
import { readBranchHead } from "./create-branch.ts";
import { countCall, readErrorMessage, readStatus, toEffectError } from "./effect-context.ts";
import type { EffectContext } from "./effect-context.ts";

type MergeBranch = Extract<Effect, { type: "mergeBranch" }>;

function finished(
  ctx: EffectContext,
  effect: MergeBranch,
  outcome: MergeOutcome,
  detail: string,
  sha?: string,
): OrchestratorEvent[] {
  ctx.log.info({ stage: effect.stageId, outcome, sha }, "merge finished");
  return [
    {
      type: "merge.finished",
      at: ctx.now(),
      stageId: effect.stageId,
      outcome,
      ...(sha ? { sha } : {}),
      detail,
    },
  ];
}

/** True when `sha` is the base head or one of its ancestors (a later push kept the merge). */
async function isOnBase(
  ctx: EffectContext,
  effect: MergeBranch,
  sha: string,
  head: string,
): Promise<boolean> {
  if (head === sha) return true;
  countCall(ctx.calls, effect.type);
  try {
    const { data } = await ctx.octokit.rest.repos.compareCommitsWithBasehead({
      owner: ctx.owner,
      repo: ctx.repo,
      basehead: `${sha}...${head}`,
      per_page: 1,
    });
    return data.status === "ahead" || data.status === "identical";
  } catch (error) {
    throw toEffectError(`comparing ${sha} with ${effect.base}`, error);
  }
}

/**
 * Merges the stage branch into the merge point with `POST /merges`, never retried blindly.
 * 201 → merged (the base head is read back and must contain the merge commit); 204 → nothing to
 * merge; 409 → conflict; any other answer → error with GitHub's message. Always one
 * `merge.finished` event: the reducer decides what happens next.
 */
export async function mergeBranch(ctx: EffectContext, effect: MergeBranch): Promise<OrchestratorEvent[]> {
  countCall(ctx.calls, effect.type);
  let response;
  try {
    response = await ctx.octokit.rest.repos.merge({
      owner: ctx.owner,
      repo: ctx.repo,
      base: effect.base,
      head: effect.head,
      commit_message: effect.message,
      request: { retries: 0 },
    });
  } catch (error) {
    const status = readStatus(error);
    const message = readErrorMessage(error);
    if (status === 409) return finished(ctx, effect, "conflict", `merge conflict: ${message}`);
    return finished(
      ctx,
      effect,
      "error",
      `GitHub refused the merge (${status ?? "network error"}): ${message}`,
    );
  }
  if ((response.status as number) === 204) {
    return finished(ctx, effect, "nothing-to-merge", `${effect.base} already contains ${effect.head}`);
  }
  const sha = response.data.sha;
  const head = await readBranchHead(ctx, effect.type, effect.base);
  if (head === null) return finished(ctx, effect, "error", `${effect.base} disappeared after the merge`, sha);
  if (!(await isOnBase(ctx, effect, sha, head))) {
    return finished(ctx, effect, "error", `merge commit ${sha} is not on ${effect.base} (head ${head})`, sha);
  }
  return finished(ctx, effect, "merged", `merged ${effect.head} into ${effect.base}`, sha);
}
