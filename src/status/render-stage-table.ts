import type { PlanState } from "../orchestrator/state.ts";
import { STAGE_STATUSES } from "../stage/stage-status.ts";
import { isAwaitingApproval } from "./check-run-actions.ts";
import {
  describeStatus,
  escapeCell,
  formatAttempt,
  formatHeartbeat,
  getCurrentSession,
  formatElapsed,
  getStageCost,
  getStatusIcon,
} from "./format-status.ts";
import { renderBudgetLine, renderBudgetLines } from "./render-budget.ts";
import { formatUsageLine, formatUsd, sumPlanUsage } from "./render-usage.ts";

/** How much detail the table carries; the renderers step down until the text fits. */
export const TABLE_DETAILS = ["full", "short", "bare"] as const;
export type TableDetail = (typeof TABLE_DETAILS)[number];

/** The stages of the plan in plan order (removed stages last). */
export function listStages(state: PlanState) {
  const stages = state.order.flatMap((id) => (state.stages[id] ? [state.stages[id]] : []));
  return [...stages.filter((s) => !s.removed), ...stages.filter((s) => s.removed)];
}

/** `3/7 merged · 2 executing · 1 blocked`, plus hold / approval / closed notes. */
export function renderCounts(state: PlanState): string {
  const stages = listStages(state).filter((s) => !s.removed);
  const merged = stages.filter((s) => s.merged).length;
  const parts = [`**${merged}/${stages.length} merged**`];
  for (const status of STAGE_STATUSES) {
    const count = stages.filter((s) => s.status === status && !(status === "completed" && s.merged)).length;
    if (count > 0) parts.push(`${count} ${status}`);
  }
  if (state.closed) parts.push("pull request closed");
  if (state.hold) parts.push("on hold (no new sessions)");
  if (isAwaitingApproval(state)) parts.push("waiting for `/loom approve` from someone with write access");
  if (state.budgetWait) parts.push("waiting for budget (`/loom budget +<usd>`)");
  return parts.join(" · ");
}

/**
 * `**Spent:** $0.42 · 123k tokens · …` over every session that reported, then the budget: in
 * full on the plan's check run (where it and the session caps come from, the forecast), one line
 * in the status comment.
 */
export function renderPlanSpend(state: PlanState, where: "check-run" | "comment" = "check-run"): string[] {
  const usage = sumPlanUsage(state);
  const lines = usage ? [`**Spent:** ${formatUsageLine(usage)}`] : [];
  lines.push(...(where === "check-run" ? renderBudgetLines(state) : renderBudgetLine(state)));
  return lines.flatMap((line) => [line, ""]);
}

/**
 * The stage table: stage (linked to its check run when `checkRunUrl` is given), status, attempt,
 * elapsed, last heartbeat, notes. `short` keeps one short note, `bare` drops heartbeat and notes.
 */
export function renderStageTable(
  state: PlanState,
  detail: TableDetail,
  now: number,
  checkRunUrl?: (checkRunId: number) => string,
): string {
  const bare = detail === "bare";
  const head = bare
    ? ["| Stage | Status | Attempt | Elapsed | Cost |", "|---|---|---|---|---|"]
    : [
        "| Stage | Status | Attempt | Elapsed | Cost | Last heartbeat | Notes |",
        "|---|---|---|---|---|---|---|",
      ];
  const rows = listStages(state).map((stage) => {
    // The stage's check run page: the checks list shows only stages running or needing a person.
    const checkRun = state.checkRuns?.[stage.id];
    const name = `\`${escapeCell(stage.id, 128)}\``;
    const cells = [
      `${checkRun && checkRunUrl ? `[${name}](${checkRunUrl(checkRun.id)})` : name}${stage.removed ? " (removed)" : ""}`,
      `${getStatusIcon(stage)} ${describeStatus(stage)}`,
      formatAttempt(stage),
      formatElapsed(stage, now),
      getStageCost(stage) > 0 ? formatUsd(getStageCost(stage)) : "—",
    ];
    if (!bare) {
      const heartbeat = formatHeartbeat(getCurrentSession(stage)?.lastHeartbeat ?? null, now);
      const notes =
        detail === "full"
          ? stage.notes.slice(-2).map((n) => n.text)
          : stage.notes.slice(-1).map((n) => n.text);
      const detailText = getCurrentSession(stage)?.detail;
      // Which stages ran again after they had completed, and why.
      const rerunWhy = stage.rerun?.why ?? stage.sessions.findLast((s) => s.kind !== "merge")?.rerunWhy;
      const noteText = [
        ...(rerunWhy === undefined ? [] : [`re-run: ${rerunWhy}`]),
        ...(detail === "full" && detailText ? [detailText] : []),
        ...notes,
      ].join("; ");
      cells.push(heartbeat ? escapeCell(heartbeat, detail === "full" ? 120 : 60) : "—");
      cells.push(noteText ? escapeCell(noteText, detail === "full" ? 300 : 80) : "");
    }
    return `| ${cells.join(" | ")} |`;
  });
  return [...head, ...rows].join("\n");
}
