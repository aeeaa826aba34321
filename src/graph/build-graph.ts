/**
 * The stage DAG. Edges point from a stage to what it depends on (`dependencies`) and back
 * (`dependents`). Both lists keep plan order, so everything built on the graph is deterministic.
 */
export type Graph = {
  ids: string[];
  dependencies: ReadonlyMap<string, readonly string[]>;
  dependents: ReadonlyMap<string, readonly string[]>;
};

/**
 * Builds the graph from stages in plan order. A repeated id keeps its first occurrence, repeated
 * dependencies count once, and dependencies on unknown ids are dropped: the validator reports
 * them, the graph only holds what can be scheduled. Self-dependencies are kept so `findCycle`
 * sees them.
 */
export function buildGraph(stages: readonly { id: string; dependencies: readonly string[] }[]): Graph {
  const ids: string[] = [];
  const known = new Set<string>();
  for (const stage of stages) {
    if (known.has(stage.id)) continue;
    known.add(stage.id);
    ids.push(stage.id);
  }
  const dependencies = new Map<string, string[]>();
  const dependents = new Map<string, string[]>(ids.map((id) => [id, []]));
  const seen = new Set<string>();
  for (const stage of stages) {
    if (seen.has(stage.id)) continue;
    seen.add(stage.id);
    const deps = [...new Set(stage.dependencies)].filter((dep) => known.has(dep));
    dependencies.set(stage.id, deps);
    for (const dep of deps) dependents.get(dep)?.push(stage.id);
  }
  return { ids, dependencies, dependents };
}

/** The dependencies of `id`, or none for an id the graph does not know. */
export function getDependencies(graph: Graph, id: string): readonly string[] {
  return graph.dependencies.get(id) ?? [];
}

/** The stages that depend on `id`, in plan order. */
export function getDependents(graph: Graph, id: string): readonly string[] {
  return graph.dependents.get(id) ?? [];
}
