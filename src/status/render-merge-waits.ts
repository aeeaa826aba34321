import { isWaitingForMerge } from "../orchestrator/is-waiting-for-merge.ts";
import { getMergePoint } from "../orchestrator/make-target-branch.ts";
import type { PlanState, StageState } from "../orchestrator/state.ts";
import { escapeCell } from "./format-status.ts";

/** `` `a` `` as a cell-safe inline code span. */
function code(text: string): string {
  return `\`${escapeCell(text, 128)}\``;
}

/**
 * The stage check run's line while the stage waits for a person to merge it (`auto_merge: false`):
 * the full checked commit (what the Merge button and `/loom merge` take), where it goes, and what
 * else a person can do. Null while it does not wait.
 */
export function renderMergeWaitFact(state: PlanState, stage: StageState): string | null {
  if (!isWaitingForMerge(stage)) return null;
  const id = escapeCell(stage.id, 128);
  const sha = stage.checkedSha;
  if (!sha) {
    return `**Waiting for a person to merge** (\`auto_merge: false\`), but the run did not say which commit its checks ran on, so loom cannot merge exactly that: \`/loom retry ${id}\` runs it again, \`/loom skip ${id}\` skips it.`;
  }
  return (
    `**Waiting for a person to merge** (\`auto_merge: false\`): the checks passed on \`${sha}\`. ` +
    `Someone with write access merges exactly that commit into ${code(getMergePoint(state))} with the ` +
    `Merge button or \`/loom merge ${id}\` (\`/loom merge ${id} ${sha.slice(0, 7)}\` names it); ` +
    `\`/loom retry ${id}\` runs the stage again, \`/loom skip ${id}\` skips it. Its dependents wait until it is merged.`
  );
}

/**
 * The stages that wait for a person to merge them, for the plan's check run and the status
 * comment: each with its checked commit and the command that merges it. Nothing when none waits.
 */
export function renderMergeWaits(state: PlanState): string[] {
  const waiting = state.order.flatMap((id) => {
    const stage = state.stages[id];
    return stage && !stage.removed && isWaitingForMerge(stage) ? [stage] : [];
  });
  if (waiting.length === 0) return [];
  return [
    "**Waiting for a person to merge** (`auto_merge: false`; someone with write access):",
    "",
    ...waiting.map((stage) => {
      const id = escapeCell(stage.id, 128);
      const at = stage.checkedSha ? ` at ${stage.checkedSha.slice(0, 7)}` : "";
      return `- ${code(stage.id)}: checks passed${at}; \`/loom merge ${id}\` or the Merge button on its check run`;
    }),
    "",
  ];
}
