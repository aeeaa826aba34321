import type { PlanState } from "../orchestrator/state.ts";
import { renderDisputes } from "./render-disputes.ts";
import { COMMENT_MAX, pickFitting } from "./fit-text.ts";
import { renderForkNote } from "./render-fork-note.ts";
import { renderMergeWaits } from "./render-merge-waits.ts";
import { renderAffected } from "./render-affected.ts";
import { escapeCell } from "./format-status.ts";
import type { RenderOptions } from "./format-status.ts";
import { renderPlanLearnings } from "./render-stage-learnings.ts";
import { renderPlanGraphText, renderPlanMermaid } from "./render-plan-graph.ts";
import { renderCounts, renderPlanSpend, renderStageTable } from "./render-stage-table.ts";
import type { TableDetail } from "./render-stage-table.ts";

/** The hidden marker that identifies a plan's sticky status comment. */
export function getStatusCommentMarker(planPath: string): string {
  return `<!-- loom:status:${planPath.replaceAll("--", "-&#45;")} -->`;
}

function renderGraph(state: PlanState, mermaid: string | null): string[] {
  if (mermaid) return ["```mermaid", mermaid.trimEnd(), "```", ""];
  return [
    "<details><summary>Graph (too large for mermaid)</summary>",
    "",
    "```text",
    renderPlanGraphText(state),
    "```",
    "</details>",
    "",
  ];
}

function render(
  state: PlanState,
  detail: TableDetail,
  graph: string[] | null,
  now: number,
  checkRunUrl?: (checkRunId: number) => string,
): string {
  const parts = [
    getStatusCommentMarker(state.plan.path),
    `### loom: ${escapeCell(state.plan.name || state.plan.id, 200)}`,
    "",
    `Plan \`${escapeCell(state.plan.path, 300)}\` · ${renderCounts(state)}`,
    "",
    ...renderForkNote(state),
    ...renderMergeWaits(state),
    ...renderDisputes(state),
    ...renderAffected(state),
    ...renderPlanSpend(state, "comment"),
    ...renderPlanLearnings(state),
  ];
  if (graph) parts.push(...graph);
  else parts.push("_The graph is left out to fit GitHub's comment size limit._", "");
  parts.push(renderStageTable(state, detail, now, checkRunUrl), "");
  parts.push(
    "<sub>Commands: `/loom retry|skip|block|unblock|cancel|merge <stage>`, `/loom status`, `/loom help`.</sub>",
  );
  return parts.join("\n");
}

/**
 * The sticky status comment of a plan: a hidden marker, counts, a mermaid graph coloured by status
 * and the stage table. Shrinks itself to fit GitHub's 65,536-character limit: shorter notes first,
 * then no heartbeat or notes, then no graph, then a hard cut.
 */
export function renderStatusComment(state: PlanState, options: RenderOptions = {}): string {
  const now = options.now ?? state.updatedAt;
  const graph = renderGraph(state, renderPlanMermaid(state));
  return pickFitting(
    [
      () => render(state, "full", graph, now, options.checkRunUrl),
      () => render(state, "short", graph, now, options.checkRunUrl),
      () => render(state, "bare", graph, now, options.checkRunUrl),
      () => render(state, "short", null, now, options.checkRunUrl),
      () => render(state, "bare", null, now, options.checkRunUrl),
    ],
    COMMENT_MAX,
  );
}
