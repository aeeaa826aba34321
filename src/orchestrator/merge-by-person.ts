import type { CommandSource, PlanSpec } from "./events.ts";
import type { StageState } from "./state.ts";
import type { StepContext } from "./step-context.ts";
import { moveStage } from "./step-context.ts";
import { requestMerge } from "./handle-merge.ts";
import { isWaitingForMerge } from "./is-waiting-for-merge.ts";
import type { ActionResult } from "./action-result.ts";

/**
 * Whether a person merges the stage: its own `auto_merge`, else the plan's, is false. The
 * reference CLI's order (`is_auto_merge_enabled`: stage, then plan, then loom's default, which
 * merges).
 */
export function isMergedByPerson(plan: PlanSpec, stageId: string): boolean {
  const stage = plan.stages.find((spec) => spec.id === stageId);
  return (stage?.autoMerge ?? plan.autoMerge ?? true) === false;
}

/**
 * The stage's run passed its checks (or its merge session resolved a conflict) and a person merges
 * it: it waits in `needs-human-review` with the commit its checks ran on (`checkedSha`), and its
 * dependents wait with it (they need it completed and merged).
 */
export function holdForMerge(ctx: StepContext, stage: StageState, why: string): void {
  const sha = stage.checkedSha;
  const note = sha
    ? `${why}; waiting for a person to merge ${sha.slice(0, 7)} (auto_merge: false): \`/loom merge ${stage.id}\` or the Merge button`
    : `${why}; waiting for a person to merge it (auto_merge: false), but the run did not say which commit its checks ran on, so no merge can be pinned to it: \`/loom retry ${stage.id}\` runs it again`;
  if (moveStage(ctx, stage, "needs-human-review", note)) stage.mergeWaitSince = ctx.at;
}

/** What a `/loom merge` or a Merge button names: the commit, or when the comment was written. */
export type MergePin = { source: CommandSource; sha?: string; writtenAt?: number };

/**
 * `/loom merge <stage> [<sha>]` or the Merge button: the stage waiting for a person is merged, by
 * SHA, at exactly the commit its checks ran on (the merge itself refuses a stage branch that moved
 * since: `merge-blocked`). Refused, with the reason, when the stage is not waiting for a merge, when
 * the commit named (the button's, the comment's) is not the checked one, or when a comment naming
 * none was written before the stage started waiting (it cannot have been about this commit).
 */
export function mergeByPerson(ctx: StepContext, stage: StageState, who: string, pin: MergePin): ActionResult {
  if (!isWaitingForMerge(stage)) return { ok: false, reason: describeNoWait(ctx.state.plan, stage) };
  const checked = stage.checkedSha;
  if (!checked) {
    return {
      ok: false,
      reason: `loom does not know which commit the checks of \`${stage.id}\` ran on, so it cannot merge exactly that: \`/loom retry ${stage.id}\` runs it again`,
    };
  }
  const stale = findStalePin(stage, checked, pin);
  if (stale !== null) return { ok: false, reason: stale };
  moveStage(ctx, stage, "completed", `merge of ${checked.slice(0, 7)} requested by ${who}`);
  requestMerge(ctx, stage);
  return { ok: true, text: `merging \`${stage.id}\` at ${checked.slice(0, 7)}` };
}

function describeNoWait(plan: PlanSpec, stage: StageState): string {
  if (stage.status === "completed")
    return `\`${stage.id}\` is ${stage.merged ? "merged already" : "being merged"}`;
  if (!isMergedByPerson(plan, stage.id))
    return `\`${stage.id}\` is ${stage.status}; loom merges it itself once its checks pass (its plan does not say \`auto_merge: false\`)`;
  return `\`${stage.id}\` is ${stage.status}, not waiting for a merge: it waits for one once its checks pass`;
}

/**
 * Why the pin does not fit the checked commit, or null when it does. A named SHA must be the
 * checked commit or a prefix of it (7+ hex digits: the button carries 14); a comment naming none
 * must have been written after the stage started waiting (GitHub's time is to the second: a
 * comment in the same second counts as written before).
 */
function findStalePin(stage: StageState, checked: string, pin: MergePin): string | null {
  const short = checked.slice(0, 7);
  if (pin.sha !== undefined) {
    const named = pin.sha.toLowerCase();
    if (named === checked || (/^[0-9a-f]{7,40}$/.test(named) && checked.startsWith(named))) return null;
    return pin.source.kind === "comment"
      ? `\`${pin.sha.slice(0, 40)}\` is not the commit the checks of \`${stage.id}\` ran on (${short}): review ${short}, then \`/loom merge ${stage.id} ${short}\``
      : `\`${stage.id}\` was checked again since that button was shown: its checks ran on ${short} now; review it and merge again`;
  }
  if (pin.writtenAt !== undefined && pin.writtenAt <= (stage.mergeWaitSince ?? 0)) {
    return `\`${stage.id}\` started waiting with ${short} after this comment was written: review it, then \`/loom merge ${stage.id} ${short}\``;
  }
  return null;
}
