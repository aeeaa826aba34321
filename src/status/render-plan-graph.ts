import { buildGraph } from "../graph/build-graph.ts";
import { renderMermaid } from "../graph/render-mermaid.ts";
import type { PlanState } from "../orchestrator/state.ts";
import { listStages } from "./render-stage-table.ts";

/** Mermaid's default limits as GitHub renders it: bigger diagrams show an error instead. */
export const MERMAID_MAX_TEXT = 50_000;
export const MERMAID_MAX_EDGES = 500;

/**
 * The plan's DAG as mermaid, nodes coloured by status (merged stages in their own colour), or null
 * when it is beyond what mermaid renders (then the text rendering stands in).
 */
export function renderPlanMermaid(state: PlanState): string | null {
  const stages = listStages(state).filter((s) => !s.removed);
  const edges = stages.reduce((sum, s) => sum + s.dependencies.length, 0);
  if (edges > MERMAID_MAX_EDGES) return null;
  const graph = buildGraph(stages);
  const text = renderMermaid(graph, {
    statusOf: (id) => state.stages[id]?.status,
    mergedOf: (id) => state.stages[id]?.merged ?? false,
  });
  return text.length > MERMAID_MAX_TEXT ? null : text;
}

/** A plain-text rendering of the DAG for places where mermaid may not render: `b ← a, c`. */
export function renderPlanGraphText(state: PlanState): string {
  return listStages(state)
    .filter((s) => !s.removed)
    .map((s) => {
      const mark = s.merged ? "merged" : s.status;
      return s.dependencies.length > 0
        ? `${s.id} [${mark}] ← ${s.dependencies.join(", ")}`
        : `${s.id} [${mark}]`;
    })
    .join("\n");
}
