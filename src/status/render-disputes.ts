import { isWaitingForAdjudication } from "../orchestrator/is-waiting-for-adjudication.ts";
import type { PlanState, StageState } from "../orchestrator/state.ts";
import { escapeCell } from "./format-status.ts";

/**
 * `` `text` `` as an inline code span on one line: the session's and a person's words render as
 * text, never as markdown, links or mentions (GitHub reads nothing inside a code span, so nothing
 * but backticks and line breaks needs escaping there; these lines are list items, not table cells).
 */
function code(text: string, max = 300): string {
  const line = text.replace(/\s+/g, " ").trim().replaceAll("`", "'");
  return `\`${line.length > max ? `${line.slice(0, max - 1)}…` : line}\``;
}

/**
 * The stage check run's line while a session's dispute waits for a person: the criterion (as
 * people number them), the session's reason, the commit its checks ran on, and the commands.
 * Null while nothing is disputed.
 */
export function renderDisputeFact(stage: StageState): string | null {
  const dispute = stage.dispute;
  if (!isWaitingForAdjudication(stage) || dispute === undefined) return null;
  const id = escapeCell(stage.id, 128);
  const n = dispute.criterionIndex + 1;
  const at = stage.checkedSha ? ` (its checks ran on \`${stage.checkedSha.slice(0, 7)}\`)` : "";
  return (
    `**The session disputes acceptance criterion ${n}** ${code(dispute.criterion)}${at}: ` +
    `the session's reason: ${code(dispute.reason, 500)}. Someone with write access decides: ` +
    `\`/loom amend ${id} ${n} <command>\` makes the criterion that command for this run (the plan file ` +
    `is not changed) and runs the checks of that commit again, without a model; \`/loom reject ${id}\` ` +
    `(or the Reject button) keeps the criterion and blocks the stage; \`/loom retry ${id}\` runs it again. ` +
    `Its dependents wait.`
  );
}

/** The stage's amended criteria, for its check run (nothing when none). */
export function renderStageAmendments(stage: StageState): string[] {
  const amendments = stage.amendments ?? [];
  if (amendments.length === 0) return [];
  return [
    "### Amended criteria (this run only; the plan file is unchanged)",
    "",
    ...amendments.map(
      (a) =>
        `- criterion ${a.criterionIndex + 1}: ${code(a.command)} instead of ${code(a.was)}, by @${escapeCell(a.by, 100)} for \`${a.sha.slice(0, 7)}\``,
    ),
  ];
}

function listLive(state: PlanState, keep: (stage: StageState) => boolean): StageState[] {
  return state.order.flatMap((id) => {
    const stage = state.stages[id];
    return stage && !stage.removed && keep(stage) ? [stage] : [];
  });
}

/**
 * The plan's check run and status comment: the disputes that wait for a person, and the record of
 * every amendment people made in this run (who, which criterion, what it became, on which commit).
 */
export function renderDisputes(state: PlanState): string[] {
  const waiting = listLive(state, isWaitingForAdjudication);
  const amended = listLive(state, (stage) => (stage.amendments?.length ?? 0) > 0);
  const lines: string[] = [];
  if (waiting.length > 0)
    lines.push(
      "**Waiting for a person's decision on a disputed criterion** (someone with write access):",
      "",
      ...waiting.map((stage) => {
        const id = escapeCell(stage.id, 128);
        const n = (stage.dispute?.criterionIndex ?? 0) + 1;
        const reason = code(stage.dispute?.reason ?? "", 300);
        return `- ${code(stage.id, 128)}: criterion ${n} ${code(stage.dispute?.criterion ?? "")} disputed (${reason}); \`/loom amend ${id} ${n} <command>\` or \`/loom reject ${id}\``;
      }),
      "",
    );
  if (amended.length > 0)
    lines.push(
      "**Amended acceptance criteria** (this run only; the plan file is unchanged):",
      "",
      ...amended.flatMap((stage) =>
        (stage.amendments ?? []).map(
          (a) =>
            `- ${code(stage.id, 128)} criterion ${a.criterionIndex + 1}: ${code(a.command)} instead of ${code(a.was)}, by @${escapeCell(a.by, 100)} for \`${a.sha.slice(0, 7)}\``,
        ),
      ),
      "",
    );
  return lines;
}
