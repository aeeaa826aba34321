import { getDependencies } from "./build-graph.ts";
import type { Graph } from "./build-graph.ts";

/**
 * The DAG level (topological depth) of every stage: stages without dependencies are level 0,
 * every other stage is one more than its deepest dependency. Precondition: the graph is acyclic
 * (check with `findCycle` first); stages on a cycle get no level.
 */
export function computeLevels(graph: Graph): Map<string, number> {
  const levels = new Map<string, number>();
  const remaining = new Map(graph.ids.map((id) => [id, getDependencies(graph, id).length]));
  let frontier = graph.ids.filter((id) => remaining.get(id) === 0);
  for (const id of frontier) levels.set(id, 0);
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const id of frontier) {
      for (const dependent of graph.dependents.get(id) ?? []) {
        const left = (remaining.get(dependent) ?? 0) - 1;
        remaining.set(dependent, left);
        if (left !== 0) continue;
        const deepest = Math.max(...getDependencies(graph, dependent).map((dep) => levels.get(dep) ?? 0));
        levels.set(dependent, deepest + 1);
        next.push(dependent);
      }
    }
    frontier = next;
  }
  return new Map(graph.ids.filter((id) => levels.has(id)).map((id) => [id, levels.get(id)!]));
}
