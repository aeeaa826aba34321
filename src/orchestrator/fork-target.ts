import type { ForkInfo, OrchestratorEvent } from "./events.ts";
import { makeTargetBranch } from "./make-target-branch.ts";
import type { PlanState } from "./state.ts";
import type { StepContext } from "./step-context.ts";
import { emit, getKeyPrefix, reject } from "./step-context.ts";

/**
 * A plan from a fork runs in the base repository on loom's result branch (`state.fork.target`):
 * each approved head is first merged into it by SHA (`syncTarget`), and stages start only on a
 * head the result branch holds. loom never writes to the fork, nor to a base branch that shares the
 * fork branch's name.
 */

/** Records where the pull request comes from: a new fork plan gets its result branch, a deleted fork is noted. */
export function applyForkInfo(state: PlanState, fork: ForkInfo | undefined): void {
  if (fork === undefined) return;
  state.fork = state.fork
    ? { ...state.fork, repo: fork.repo }
    : {
        repo: fork.repo,
        target: makeTargetBranch(state.pr.number, state.plan.id),
        syncedSha: null,
        syncingSha: null,
        problem: null,
      };
}

/** Why a fork plan may not start stages at its head now, or null (not a fork, or the head is in the result branch). */
export function findForkBlocker(state: PlanState): string | null {
  const { fork } = state;
  const head = state.pr.headSha;
  if (!fork || fork.syncedSha === head) return null;
  const short = head.slice(0, 7);
  if (fork.repo === null)
    return `the pull request's fork was deleted: loom does not run head ${short}, which is not in \`${fork.target}\``;
  if (fork.problem?.sha === head)
    return `head ${short} could not be merged into \`${fork.target}\` (${fork.problem.detail}): merge \`${fork.target}\` into your branch, push, and ask for \`/loom approve\` again`;
  return `bringing the approved head ${short} into \`${fork.target}\``;
}

/**
 * Asks the app to merge the approved head into the result branch, once per head, when nothing
 * else holds the plan (closed, held, unapproved) and the head is not there yet.
 */
export function requestTargetSync(ctx: StepContext): void {
  const { state } = ctx;
  const { fork } = state;
  const head = state.pr.headSha;
  if (!fork || fork.repo === null || state.closed || state.hold) return;
  if (state.approvedSha !== head) return;
  if (fork.syncedSha === head || fork.syncingSha === head || fork.problem?.sha === head) return;
  fork.syncingSha = head;
  emit(ctx, {
    type: "syncTarget",
    key: `${getKeyPrefix(state)}:@plan:sync-target:${head}`,
    branch: fork.target,
    sha: head,
  });
}

export function handleTargetSynced(
  ctx: StepContext,
  event: Extract<OrchestratorEvent, { type: "target.synced" }>,
): void {
  const { fork } = ctx.state;
  if (!fork) {
    reject(ctx, null, "target.synced for a plan that does not come from a fork");
    return;
  }
  if (fork.syncingSha === event.sha) fork.syncingSha = null;
  if (event.outcome === "synced") {
    fork.syncedSha = event.sha;
    if (fork.problem?.sha === event.sha) fork.problem = null;
    return;
  }
  fork.problem = { sha: event.sha, detail: event.detail };
}
