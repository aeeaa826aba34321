import type { PlanState } from "./state.ts";
import { isWaitingForAdjudication } from "./is-waiting-for-adjudication.ts";
import { formatAttempt } from "../status/format-status.ts";
import { findDispatchBlocker } from "./schedule.ts";
import { isWaitingForMerge } from "./is-waiting-for-merge.ts";

/** A short plain-text status for a command reply: one line per stage, in plan order. */
export function summarizeStatus(state: PlanState): string {
  const lines = [`**${state.plan.name}** (\`${state.plan.id}\`)`];
  const blocker = findDispatchBlocker(state);
  if (blocker !== null) lines.push(`Not dispatching: ${blocker}.`);
  for (const id of state.order) {
    const stage = state.stages[id];
    if (!stage) continue;
    const status =
      stage.status === "completed" && stage.merged
        ? "completed, merged"
        : isWaitingForMerge(stage)
          ? `waiting for a person to merge${stage.checkedSha ? ` ${stage.checkedSha.slice(0, 7)}` : ""} (\`/loom merge ${id}\`)`
          : isWaitingForAdjudication(stage)
            ? `criterion ${(stage.dispute?.criterionIndex ?? 0) + 1} disputed, waiting for a person (\`/loom amend ${id} ${(stage.dispute?.criterionIndex ?? 0) + 1} <command>\` or \`/loom reject ${id}\`)`
            : stage.status;
    const retry = stage.retryAt !== null ? `, retry at ${new Date(stage.retryAt).toISOString()}` : "";
    const removed = stage.removed ? " (removed from the plan)" : "";
    const affected = state.affected?.stages.some((entry) => entry.id === id) === true ? ", affected" : "";
    lines.push(`- \`${id}\`: ${status}${affected}${retry}${removed}, attempt ${formatAttempt(stage)}`);
  }
  if ((state.affected?.stages.length ?? 0) > 0)
    lines.push("Affected by a change: `/loom rerun affected` runs them again.");
  return lines.join("\n");
}
