import type { PlanState } from "./state.ts";
import type { StepContext } from "./step-context.ts";
import { forgetOwnPush } from "./rerun-affected.ts";

/** How many of loom's own merge SHAs a plan remembers (a push is judged against the newest). */
const LOOM_HEADS_KEPT = 20;

/**
 * The pull request's head moved to `headSha` from `before`. A push is loom's own only when its SHA
 * is a merge commit loom produced (recorded from its merge response) and it moved the head loom
 * knew (`before`): then an approval of that head carries over (the approved code plus merged stage
 * work). Anything else (a person's push, whoever sent its webhook; a head read back with no
 * `before`) on an untrusted plan needs a new approval, unless it later proves to be loom's own
 * merge on the approved head (`approvalLost`).
 */
export function moveHead(
  ctx: StepContext,
  headSha: string,
  move: { before: string | null; pushedAt?: number; plansUntouched?: boolean; tree?: string | undefined },
): void {
  const { state } = ctx;
  const previous = state.pr.headSha;
  const wasApproved = state.approvedSha !== null && state.approvedSha === previous;
  const own = move.before === previous && (state.loomHeads ?? []).includes(headSha);
  state.pr = { ...state.pr, headSha };
  if (move.plansUntouched === true) state.pr.plansUntouched = true;
  else delete state.pr.plansUntouched;
  if (move.tree === undefined) delete state.pr.headTree;
  else state.pr.headTree = move.tree;
  if (move.pushedAt === undefined) delete state.pr.headAt;
  else state.pr.headAt = move.pushedAt;
  delete state.approvalLost;
  if (state.trusted) return;
  if (own && wasApproved) state.approvedSha = headSha;
  else if (state.approvedSha !== headSha) {
    state.approvedSha = null;
    if (wasApproved)
      state.approvalLost = { from: previous, to: headSha, onApproved: move.before === previous };
  }
}

/**
 * The push that made the current head, seen again with its `before` (its webhook after the head
 * was read back from the API): when it was pushed on the approved head, loom may yet know it as
 * its own merge.
 */
export function confirmHead(ctx: StepContext, before: string | null): void {
  const lost = ctx.state.approvalLost;
  if (lost === undefined || before !== lost.from || lost.to !== ctx.state.pr.headSha) return;
  lost.onApproved = true;
  restoreApproval(ctx);
}

/**
 * loom's merge produced `sha`: remembered as loom's own push. When the push's webhook (or a
 * read-back) came first and dropped the approval of the head it was merged onto, it comes back.
 */
export function recordLoomHead(ctx: StepContext, sha: string): void {
  const { state } = ctx;
  state.loomHeads = [...(state.loomHeads ?? []).filter((known) => known !== sha), sha].slice(
    -LOOM_HEADS_KEPT,
  );
  restoreApproval(ctx);
  forgetOwnPush(ctx, sha);
}

/** An approval dropped by a move that proved to be loom's own merge on the approved head. */
function restoreApproval(ctx: StepContext): void {
  const { state } = ctx;
  const lost = state.approvalLost;
  if (lost === undefined || !lost.onApproved || !(state.loomHeads ?? []).includes(lost.to)) return;
  if (state.pr.headSha !== lost.to || state.approvedSha !== null) return;
  state.approvedSha = lost.to;
  delete state.approvalLost;
}

/**
 * A push's webhook that comes after loom already moved the head past it: the push of one of loom's
 * own commits (a merge, a rename) older than the current head, itself loom's, which loom took from
 * its merge or commit answer before the webhooks of the earlier pushes arrived. Moving back to it
 * would undo loom's later merges (and an approval with them). Never a read-back (`before` null),
 * and never a push from the current head (a reset to an older commit is a push from the head).
 */
export function isStalePush(state: PlanState, headSha: string, before: string | null): boolean {
  if (before === null || before === state.pr.headSha) return false;
  const heads = state.loomHeads ?? [];
  const pushed = heads.indexOf(headSha);
  return pushed !== -1 && pushed < heads.indexOf(state.pr.headSha);
}
