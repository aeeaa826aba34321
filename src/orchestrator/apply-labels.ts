import { DEFAULT_LABEL_PREFIX, parseLabel } from "../commands/parse-label.ts";
import type { StepContext } from "./step-context.ts";
import { reject } from "./step-context.ts";
import { blockStage, skipStage, unblockStage } from "./stage-actions.ts";

/**
 * Makes the stages agree with the pull request's current labels (level-triggered: the event
 * carries the whole set, so a missed or reordered label event heals on the next one):
 * `<prefix>:skip:<stage>` skips, `<prefix>:block:<stage>` blocks and its removal unblocks,
 * `<prefix>:hold` stops new dispatches. Removing a skip label does not bring a stage back:
 * skipped is final. Labels naming no stage are recorded in `rejected` when they appear.
 */
export function applyLabels(ctx: StepContext, labels: readonly string[]): void {
  const { state } = ctx;
  const prefix = state.settings.labelPrefix ?? DEFAULT_LABEL_PREFIX;
  const previous = new Set(state.labels);
  const skip = new Set<string>();
  const block = new Set<string>();
  let hold = false;
  for (const label of labels) {
    const intent = parseLabel(label, prefix);
    if (intent === null) continue;
    if (intent.kind === "hold") {
      hold = true;
      continue;
    }
    const stage = state.stages[intent.stageId];
    if ((!stage || stage.removed) && !previous.has(label))
      reject(ctx, null, `label ${label} names no stage of ${state.plan.id}`);
    (intent.kind === "skip" ? skip : block).add(intent.stageId);
  }
  state.labels = [...labels];
  state.hold = hold;
  for (const id of state.order) {
    const stage = state.stages[id];
    if (!stage || stage.removed) continue;
    const who = (kind: string) => `label ${prefix}:${kind}:${id}`;
    if (skip.has(id)) {
      if (stage.status !== "skipped" && stage.status !== "completed")
        skipStage(ctx, stage, "label", who("skip"));
    } else if (block.has(id)) {
      const blockedByLabel = stage.status === "blocked" && stage.blockedBy === "label";
      if (!blockedByLabel && stage.status !== "skipped" && stage.status !== "completed")
        blockStage(ctx, stage, "label", who("block"));
    } else if (stage.status === "blocked" && stage.blockedBy === "label") {
      unblockStage(ctx, stage, "label", `removing ${who("block")}`);
    }
  }
}
