import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { buildGraph } from "../../src/graph/build-graph.ts";
import { findCycle } from "../../src/graph/find-cycle.ts";
import { computeLevels } from "../../src/graph/compute-levels.ts";
import { readyStages } from "../../src/graph/ready-stages.ts";
import type { StageReadiness } from "../../src/graph/ready-stages.ts";
import { STAGE_STATUSES } from "../../src/stage/stage-status.ts";

/** A random DAG: stage i may only depend on stages before it, so it is acyclic by construction. */
const randomDag = fc.integer({ min: 1, max: 30 }).chain((size) =>
  fc
    .array(fc.array(fc.nat({ max: 1000 }), { maxLength: 4 }), { minLength: size, maxLength: size })
    .map((picks) =>
      picks.map((deps, i) => ({
        id: `stage-${i}`,
        dependencies: i === 0 ? [] : deps.map((d) => `stage-${d % i}`),
      })),
    ),
);

test("on random DAGs every edge goes from a lower to a higher level", () => {
  fc.assert(
    fc.property(randomDag, (stages) => {
      const graph = buildGraph(stages);
      const levels = computeLevels(graph);
      assert.equal(levels.size, stages.length);
      for (const [id, deps] of graph.dependencies) {
        for (const dep of deps) assert.ok(levels.get(dep)! < levels.get(id)!, `${dep} -> ${id}`);
        if (deps.length === 0) assert.equal(levels.get(id), 0);
      }
      assert.equal(findCycle(graph), null);
    }),
    { numRuns: 300 },
  );
});

test("the ready set never contains a stage with an unmerged or unsatisfied dependency", () => {
  const readiness = fc.record({
    status: fc.constantFrom(...STAGE_STATUSES),
    merged: fc.boolean(),
    skippedBy: fc.constantFrom("label" as const, "command" as const, null),
  });
  fc.assert(
    fc.property(
      randomDag.chain((stages) =>
        fc.tuple(
          fc.constant(stages),
          fc.array(readiness, { minLength: stages.length, maxLength: stages.length }),
        ),
      ),
      ([stages, picked]) => {
        const graph = buildGraph(stages);
        const states: Record<string, StageReadiness> = Object.fromEntries(
          stages.map((s, i) => [s.id, picked[i]!]),
        );
        for (const id of readyStages(graph, states)) {
          assert.ok(["waiting-for-deps", "queued"].includes(states[id]!.status));
          for (const dep of graph.dependencies.get(id) ?? []) {
            const d = states[dep]!;
            const satisfied =
              (d.status === "completed" && d.merged) || (d.status === "skipped" && d.skippedBy !== null);
            assert.ok(satisfied, `${id} is ready although ${dep} is ${d.status} merged=${d.merged}`);
          }
        }
      },
    ),
    { numRuns: 300 },
  );
});

test("an injected cycle is always reported, and the reported path is a real cycle", () => {
  fc.assert(
    fc.property(randomDag, fc.nat(), fc.nat(), (stages, x, y) => {
      // Add an edge from an earlier stage to a later one that (transitively) depends on it.
      const later = x % stages.length;
      const reachable = new Set<string>([`stage-${later}`]);
      for (let i = later; i >= 0; i--) {
        if (reachable.has(`stage-${i}`)) for (const dep of stages[i]!.dependencies) reachable.add(dep);
      }
      const candidates = [...reachable];
      const earlier = candidates[y % candidates.length]!;
      const withCycle = stages.map((s) =>
        s.id === earlier ? { ...s, dependencies: [...s.dependencies, `stage-${later}`] } : s,
      );
      const graph = buildGraph(withCycle);
      const cycle = findCycle(graph);
      assert.ok(cycle, "cycle not reported");
      assert.equal(cycle[0], cycle[cycle.length - 1]);
      for (let i = 0; i + 1 < cycle.length; i++) {
        assert.ok(
          graph.dependencies.get(cycle[i]!)!.includes(cycle[i + 1]!),
          `${cycle[i]} does not depend on ${cycle[i + 1]}`,
        );
      }
      assert.equal(new Set(cycle.slice(1)).size, cycle.length - 1, "cycle repeats a stage");
    }),
    { numRuns: 300 },
  );
});

/** Any directed graph, cycles and self-dependencies allowed: each stage may depend on any stage. */
const randomGraph = fc
  .integer({ min: 1, max: 12 })
  .chain((size) =>
    fc
      .array(fc.array(fc.nat({ max: size - 1 }), { maxLength: 3 }), { minLength: size, maxLength: size })
      .map((picks) => picks.map((deps, i) => ({ id: `s${i}`, dependencies: deps.map((d) => `s${d}`) }))),
  );

/** Edges from `id` to the nearest `target` by a breadth-first walk: the shortest way there, or null. */
function shortestWay(graph: ReturnType<typeof buildGraph>, id: string, target: string): number | null {
  const seen = new Set<string>();
  let frontier = [id];
  for (let steps = 1; frontier.length > 0; steps++) {
    const next: string[] = [];
    for (const at of frontier) {
      for (const dep of graph.dependencies.get(at) ?? []) {
        if (dep === target) return steps;
        if (seen.has(dep)) continue;
        seen.add(dep);
        next.push(dep);
      }
    }
    frontier = next;
  }
  return null;
}

test("findCycle starts at the first stage in plan order that lies on a cycle and takes the shortest way round", () => {
  fc.assert(
    fc.property(randomGraph, (stages) => {
      const graph = buildGraph(stages);
      const start = graph.ids.find((id) => shortestWay(graph, id, id) !== null);
      const cycle = findCycle(graph);
      if (start === undefined) {
        assert.equal(cycle, null);
        return;
      }
      assert.ok(cycle, "cycle not reported");
      assert.equal(cycle[0], start);
      assert.equal(cycle.at(-1), start);
      assert.equal(cycle.length - 1, shortestWay(graph, start, start));
      for (let i = 0; i + 1 < cycle.length; i++) {
        assert.ok(
          graph.dependencies.get(cycle[i]!)!.includes(cycle[i + 1]!),
          `${cycle[i]} -> ${cycle[i + 1]}`,
        );
      }
    }),
    { numRuns: 500 },
  );
});
