import { getDependencies } from "./build-graph.ts";
import type { Graph } from "./build-graph.ts";
import { computeLevels } from "./compute-levels.ts";

export type CriticalPath = {
  /** Stages from a root to the last stage to finish, following dependency order. */
  path: string[];
  /** Sum of the durations along the path. */
  duration: number;
};

/**
 * The longest chain of dependent stages, weighted by each stage's duration (ms, or any unit):
 * the least time the whole plan can take with unlimited parallel sessions. Ties go to the stage
 * that comes first in the plan. Precondition: the graph is acyclic. An empty graph gives an
 * empty path.
 */
export function criticalPath(graph: Graph, durationOf: (id: string) => number): CriticalPath {
  const levels = computeLevels(graph);
  const byLevel = [...graph.ids].sort((a, b) => (levels.get(a) ?? 0) - (levels.get(b) ?? 0));
  const finish = new Map<string, number>();
  const via = new Map<string, string | null>();
  for (const id of byLevel) {
    let best: string | null = null;
    let start = 0;
    for (const dep of getDependencies(graph, id)) {
      const depFinish = finish.get(dep) ?? 0;
      if (best === null || depFinish > start) {
        best = dep;
        start = depFinish;
      }
    }
    finish.set(id, start + Math.max(0, durationOf(id)));
    via.set(id, best);
  }
  let last: string | null = null;
  for (const id of graph.ids) {
    if (last === null || (finish.get(id) ?? 0) > (finish.get(last) ?? 0)) last = id;
  }
  if (last === null) return { path: [], duration: 0 };
  const path: string[] = [];
  for (let id: string | null = last; id !== null; id = via.get(id) ?? null) path.push(id);
  return { path: path.reverse(), duration: finish.get(last) ?? 0 };
}
