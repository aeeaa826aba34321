import type { Effect } from "../../src/orchestrator/effects.ts";
import type { OrchestratorEvent } from "../../src/orchestrator/events.ts";
import { readBranchHead } from "./create-branch.ts";
import {
  countCall,
  EffectError,
  MAX_EFFECT_ATTEMPTS,
  readErrorMessage,
  readStatus,
  toEffectError,
} from "./effect-context.ts";
import type { EffectContext } from "./effect-context.ts";

type SyncTarget = Extract<Effect, { type: "syncTarget" }>;
type Outcome = Extract<OrchestratorEvent, { type: "target.synced" }>["outcome"];

function synced(
  ctx: EffectContext,
  effect: SyncTarget,
  outcome: Outcome,
  detail: string,
): OrchestratorEvent[] {
  ctx.log.info(
    { branch: effect.branch, sha: effect.sha, outcome },
    "fork head brought into the result branch",
  );
  return [{ type: "target.synced", at: ctx.now(), sha: effect.sha, outcome, detail }];
}

/**
 * Brings a fork plan's approved head into its result branch in the base repository, by SHA (GitHub
 * keeps the fork's head there as `refs/pull/<n>/head`, so the base repository can name it): a
 * missing result branch is created at the head; an existing one gets `POST /merges` of the head
 * (201 merged, 204 already there, 409 conflict), never retried blindly. Writes only to the result
 * branch, never to the fork nor to the base branch named like the fork's. An answer that cannot be
 * had (5xx, network) is tried again by the outbox, and reported as an error on the last try, so
 * the plan says why instead of waiting for ever.
 */
export async function syncTarget(ctx: EffectContext, effect: SyncTarget): Promise<OrchestratorEvent[]> {
  try {
    const tip = await readBranchHead(ctx, effect.type, effect.branch);
    if (tip === null && (await createTarget(ctx, effect)))
      return synced(ctx, effect, "synced", `created ${effect.branch} at ${effect.sha.slice(0, 7)}`);
    if (tip === effect.sha)
      return synced(ctx, effect, "synced", `${effect.branch} is at ${effect.sha.slice(0, 7)}`);
    return await mergeHead(ctx, effect);
  } catch (error) {
    const failure = error instanceof EffectError ? error : toEffectError(`updating ${effect.branch}`, error);
    if (failure.retryable && (ctx.attempt ?? 1) < MAX_EFFECT_ATTEMPTS) throw failure;
    return synced(ctx, effect, "error", failure.message);
  }
}

/** Creates the result branch at the head; false when someone created it meanwhile (then it is merged into). */
async function createTarget(ctx: EffectContext, effect: SyncTarget): Promise<boolean> {
  countCall(ctx.calls, effect.type);
  try {
    await ctx.octokit.rest.git.createRef({
      owner: ctx.owner,
      repo: ctx.repo,
      ref: `refs/heads/${effect.branch}`,
      sha: effect.sha,
    });
    return true;
  } catch (error) {
    if (readStatus(error) === 422 && (await readBranchHead(ctx, effect.type, effect.branch)) !== null)
      return false;
    throw toEffectError(`creating ${effect.branch} at ${effect.sha.slice(0, 7)}`, error);
  }
}

async function mergeHead(ctx: EffectContext, effect: SyncTarget): Promise<OrchestratorEvent[]> {
  const short = effect.sha.slice(0, 7);
  countCall(ctx.calls, effect.type);
  try {
    const response = await ctx.octokit.rest.repos.merge({
      owner: ctx.owner,
      repo: ctx.repo,
      base: effect.branch,
      head: effect.sha,
      commit_message: `loom: bring the pull request's approved head ${short} into ${effect.branch}`,
      request: { retries: 0 },
    });
    if ((response.status as number) === 204)
      return synced(ctx, effect, "synced", `${effect.branch} already contains ${short}`);
    return synced(ctx, effect, "synced", `merged ${short} into ${effect.branch}`);
  } catch (error) {
    const status = readStatus(error);
    if (status === 409)
      return synced(ctx, effect, "conflict", `it conflicts with the stage work in ${effect.branch}`);
    if (status !== null && status < 500)
      return synced(ctx, effect, "error", `GitHub refused the merge (${status}): ${readErrorMessage(error)}`);
    throw toEffectError(`merging ${short} into ${effect.branch}`, error);
  }
}
