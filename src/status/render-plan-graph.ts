import { buildGraph } from "../graph/build-graph.ts";
import { renderMermaid } from "../graph/render-mermaid.ts";
import type { PlanState } from "../orchestrator/state.ts";
import { listStages } from "./render-stage-table.ts";

/** The plan's DAG as mermaid, nodes coloured by status (merged stages in their own colour). */
export function renderPlanMermaid(state: PlanState): string {
  const stages = listStages(state).filter((s) => !s.removed);
  const graph = buildGraph(stages);
  return renderMermaid(graph, {
    statusOf: (id) => state.stages[id]?.status,
    mergedOf: (id) => state.stages[id]?.merged ?? false,
  });
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
