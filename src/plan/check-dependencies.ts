import { buildGraph } from "../graph/build-graph.ts";
import type { Graph } from "../graph/build-graph.ts";
import { findCycle } from "../graph/find-cycle.ts";
import type { Diagnostics } from "./diagnostics.ts";
import type { Location } from "./plan.ts";
import { findClosestName } from "./find-closest-name.ts";
import type { StageEntry } from "./read-loom-document.ts";
import type { YamlLocator } from "./yaml-locator.ts";

/**
 * Every dependency must name another stage of the plan (an unknown one gets "did you mean" when
 * an id is close to it), and the dependencies must not form a cycle. A cycle is reported once, naming its stages in order (`a → c → b → a`: a needs c, …),
 * at the dependency entry where it starts. Returns the graph of the stages and whether it is acyclic.
 */
export function checkDependencies(
  entries: readonly StageEntry[],
  declaredIds: ReadonlyMap<string, number[]>,
  at: YamlLocator,
  report: Diagnostics,
): { graph: Graph; acyclic: boolean } {
  for (const { stage, index } of entries) {
    stage.dependencies.forEach((dep, i) => {
      // Located only when reported: walking the yaml for every dependency of a large plan is slow.
      const where = (): Location => at.value(["loom", "stages", index, "dependencies", i]);
      if (dep === stage.id) {
        report.error(`stage "${stage.id}" depends on itself`, where(), stage.id);
      } else if (!declaredIds.has(dep)) {
        const others = [...declaredIds.keys()].filter((id) => id !== stage.id);
        const near = findClosestName(dep, others);
        const hint = near === null ? "" : ` (did you mean "${near}"?)`;
        report.error(`stage "${stage.id}" depends on unknown stage "${dep}"${hint}`, where(), stage.id);
      }
    });
  }
  const graph = buildGraph(
    entries.map(({ stage }) => ({
      id: stage.id,
      dependencies: stage.dependencies.filter((dep) => dep !== stage.id),
    })),
  );
  const cycle = findCycle(graph);
  if (!cycle) return { graph, acyclic: true };
  const [first, second] = cycle;
  const entry = entries.find(({ stage }) => stage.id === first);
  const depIndex = entry?.stage.dependencies.indexOf(second ?? "") ?? -1;
  const where = entry
    ? at.value(["loom", "stages", entry.index, "dependencies", Math.max(0, depIndex)])
    : at.value(["loom", "stages"]);
  report.error(`dependency cycle: ${cycle.join(" → ")}`, where, first);
  return { graph, acyclic: false };
}
