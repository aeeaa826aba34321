import { test } from "node:test";
import assert from "node:assert/strict";
import { buildGraph, getDependencies, getDependents } from "../../src/graph/build-graph.ts";
import { findCycle } from "../../src/graph/find-cycle.ts";
import { computeLevels } from "../../src/graph/compute-levels.ts";
import { isDependencySatisfied, readyStages } from "../../src/graph/ready-stages.ts";
import type { StageReadiness } from "../../src/graph/ready-stages.ts";
import { criticalPath } from "../../src/graph/critical-path.ts";
import { getStatusClass, renderMermaid } from "../../src/graph/render-mermaid.ts";
import { STAGE_STATUSES } from "../../src/stage/stage-status.ts";

const diamond = buildGraph([
  { id: "a", dependencies: [] },
  { id: "b", dependencies: ["a"] },
  { id: "c", dependencies: ["a"] },
  { id: "d", dependencies: ["b", "c"] },
]);

test("buildGraph keeps plan order, links dependents and drops unknown dependencies", () => {
  const graph = buildGraph([
    { id: "z", dependencies: ["ghost"] },
    { id: "y", dependencies: ["z", "z"] },
  ]);
  assert.deepEqual(graph.ids, ["z", "y"]);
  assert.deepEqual(graph.dependencies.get("z"), []);
  assert.deepEqual(graph.dependencies.get("y"), ["z"]);
  assert.deepEqual(graph.dependents.get("z"), ["y"]);
});

test("findCycle names the reference fixture's cycle starting from the first stage in plan order", () => {
  const graph = buildGraph([
    { id: "stage-a", dependencies: ["stage-c"] },
    { id: "stage-b", dependencies: ["stage-a"] },
    { id: "stage-c", dependencies: ["stage-b"] },
  ]);
  assert.deepEqual(findCycle(graph), ["stage-a", "stage-c", "stage-b", "stage-a"]);
});

test("findCycle reports a self-dependency and ignores stages only leading into a cycle", () => {
  assert.deepEqual(findCycle(buildGraph([{ id: "x", dependencies: ["x"] }])), ["x", "x"]);
  const graph = buildGraph([
    { id: "entry", dependencies: ["p"] },
    { id: "p", dependencies: ["q"] },
    { id: "q", dependencies: ["p"] },
  ]);
  assert.deepEqual(findCycle(graph), ["p", "q", "p"]);
  assert.equal(findCycle(diamond), null);
});

test("computeLevels puts roots on level 0 and each stage one below its deepest dependency", () => {
  assert.deepEqual(
    [...computeLevels(diamond)],
    [
      ["a", 0],
      ["b", 1],
      ["c", 1],
      ["d", 2],
    ],
  );
  const uneven = buildGraph([
    { id: "a", dependencies: [] },
    { id: "b", dependencies: ["a"] },
    { id: "c", dependencies: ["a", "b"] },
  ]);
  assert.equal(computeLevels(uneven).get("c"), 2);
});

function states(entries: Record<string, Partial<StageReadiness>>): Record<string, StageReadiness> {
  return Object.fromEntries(
    Object.entries(entries).map(([id, s]) => [
      id,
      { status: "waiting-for-deps", merged: false, skippedBy: null, ...s },
    ]),
  );
}

test("readyStages waits until a dependency is completed AND merged", () => {
  const completedOnly = states({ a: { status: "completed" }, b: {}, c: {}, d: {} });
  assert.deepEqual(readyStages(diamond, completedOnly), []);
  const merged = states({ a: { status: "completed", merged: true }, b: {}, c: { status: "queued" }, d: {} });
  assert.deepEqual(readyStages(diamond, merged), ["b", "c"]);
});

test("readyStages counts a skipped dependency only when a person skipped it", () => {
  const base = {
    a: { status: "completed" as const, merged: true },
    c: { status: "completed" as const, merged: true },
    d: {},
  };
  assert.deepEqual(readyStages(diamond, states({ ...base, b: { status: "skipped", skippedBy: "label" } })), [
    "d",
  ]);
  assert.deepEqual(readyStages(diamond, states({ ...base, b: { status: "skipped", skippedBy: null } })), []);
});

test("readyStages never offers a stage that already runs or finished", () => {
  const s = states({
    a: { status: "executing" },
    b: { status: "blocked" },
    c: { status: "completed", merged: true },
  });
  assert.deepEqual(readyStages(diamond, s), []);
});

test("criticalPath follows the slowest chain of dependencies", () => {
  const durations: Record<string, number> = { a: 10, b: 5, c: 30, d: 1 };
  assert.deepEqual(
    criticalPath(diamond, (id) => durations[id] ?? 0),
    { path: ["a", "c", "d"], duration: 41 },
  );
  assert.deepEqual(
    criticalPath(buildGraph([]), () => 1),
    { path: [], duration: 0 },
  );
});

test("renderMermaid draws edges from dependencies to dependents with safe node ids and escaped labels", () => {
  const graph = buildGraph([
    { id: "set-up_db", dependencies: [] },
    { id: "api", dependencies: ["set-up_db"] },
  ]);
  const text = renderMermaid(graph, { labelOf: (id) => (id === "api" ? 'API "v2" <b>' : id) });
  assert.equal(text, 'graph TD\n  s0["set-up_db"]\n  s1["API #34;v2#34; #60;b#62;"]\n  s0 --> s1\n');
});

test("renderMermaid colours nodes by status and marks merged stages", () => {
  const status = { a: "completed", b: "executing", c: "blocked", d: "waiting-for-deps" } as const;
  const text = renderMermaid(diamond, {
    statusOf: (id) => status[id as keyof typeof status],
    mergedOf: (id) => id === "a",
  });
  assert.match(text, /s0\["a \(merged\)"\]/);
  assert.match(text, /s1\["b \(executing\)"\]/);
  assert.match(text, /classDef executing fill:/);
  assert.match(text, /\n {2}class s0 merged\n/);
  assert.match(text, /\n {2}class s1 executing\n/);
  assert.match(text, /\n {2}class s3 waiting_for_deps\n/);
});

test("a stage id repeated in the plan keeps its first occurrence and that occurrence's dependencies", () => {
  const graph = buildGraph([
    { id: "a", dependencies: [] },
    { id: "b", dependencies: [] },
    { id: "c", dependencies: ["a"] },
    { id: "c", dependencies: ["b"] },
  ]);
  assert.deepEqual(graph.ids, ["a", "b", "c"]);
  assert.deepEqual(getDependencies(graph, "c"), ["a"]);
  assert.deepEqual(getDependents(graph, "a"), ["c"]);
  assert.deepEqual(getDependents(graph, "b"), []);
});

test("an id the graph does not know has no dependencies and no dependents", () => {
  assert.deepEqual(getDependencies(diamond, "ghost"), []);
  assert.deepEqual(getDependents(diamond, "ghost"), []);
  assert.deepEqual(getDependents(diamond, "a"), ["b", "c"]);
  assert.deepEqual(getDependents(diamond, "d"), []);
});

test("computeLevels does not depend on the order stages are listed in the plan", () => {
  const listedBackwards = buildGraph([
    { id: "d", dependencies: ["b", "c"] },
    { id: "c", dependencies: ["a"] },
    { id: "b", dependencies: ["a"] },
    { id: "a", dependencies: [] },
  ]);
  const levels = computeLevels(listedBackwards);
  assert.deepEqual(
    ["a", "b", "c", "d"].map((id) => levels.get(id)),
    [0, 1, 1, 2],
  );
});

test("computeLevels gives stages on a cycle, and stages after one, no level", () => {
  const graph = buildGraph([
    { id: "root", dependencies: [] },
    { id: "p", dependencies: ["root", "q"] },
    { id: "q", dependencies: ["p"] },
    { id: "after", dependencies: ["q"] },
    { id: "aside", dependencies: ["root"] },
  ]);
  assert.deepEqual(
    [...computeLevels(graph)],
    [
      ["root", 0],
      ["aside", 1],
    ],
  );
});

test("a stage whose dependency has no state yet is not ready", () => {
  const graph = buildGraph([
    { id: "a", dependencies: [] },
    { id: "b", dependencies: ["a"] },
  ]);
  assert.deepEqual(readyStages(graph, states({ b: {} })), []);
  assert.equal(isDependencySatisfied(undefined), false);
});

test("a dependency skipped with /loom skip counts as done like one skipped by label", () => {
  const base = {
    a: { status: "completed" as const, merged: true },
    c: { status: "completed" as const, merged: true },
    d: {},
  };
  assert.deepEqual(
    readyStages(diamond, states({ ...base, b: { status: "skipped", skippedBy: "command" } })),
    ["d"],
  );
});

test("criticalPath finds the slowest chain whatever order the plan lists the stages in", () => {
  const graph = buildGraph([
    { id: "d", dependencies: ["b", "c"] },
    { id: "c", dependencies: ["a"] },
    { id: "b", dependencies: ["a"] },
    { id: "a", dependencies: [] },
  ]);
  const durations: Record<string, number> = { a: 10, b: 30, c: 5, d: 1 };
  assert.deepEqual(
    criticalPath(graph, (id) => durations[id] ?? 0),
    { path: ["a", "b", "d"], duration: 41 },
  );
});

test("criticalPath follows the slower dependency even when the plan names it first", () => {
  const durations: Record<string, number> = { a: 10, b: 30, c: 5, d: 1 };
  assert.deepEqual(
    criticalPath(diamond, (id) => durations[id] ?? 0),
    { path: ["a", "b", "d"], duration: 41 },
  );
});

test("criticalPath ends at the stage that finishes last, not at the last one in the plan", () => {
  const graph = buildGraph([
    { id: "a", dependencies: [] },
    { id: "b", dependencies: ["a"] },
    { id: "side", dependencies: [] },
  ]);
  const durations: Record<string, number> = { a: 10, b: 20, side: 5 };
  assert.deepEqual(
    criticalPath(graph, (id) => durations[id] ?? 0),
    { path: ["a", "b"], duration: 30 },
  );
});

test("criticalPath breaks ties for the plan's earlier stage, and counts zero-length stages on the path", () => {
  const durations: Record<string, number> = { a: 0, b: 5, c: 5, d: 1 };
  assert.deepEqual(
    criticalPath(diamond, (id) => durations[id] ?? 0),
    { path: ["a", "b", "d"], duration: 6 },
  );
  const twins = buildGraph([
    { id: "x", dependencies: [] },
    { id: "y", dependencies: [] },
  ]);
  assert.deepEqual(
    criticalPath(twins, () => 3),
    { path: ["x"], duration: 3 },
  );
  assert.deepEqual(
    criticalPath(twins, () => 0),
    { path: ["x"], duration: 0 },
  );
});

test("renderMermaid defines a fill, stroke and text colour for every status and for merged stages", () => {
  const text = renderMermaid(diamond, { statusOf: () => "queued" });
  const defined = new Map(
    [...text.matchAll(/^ {2}classDef (\S+) (.*)$/gm)].map(([, name, style]) => [name, style]),
  );
  for (const status of [...STAGE_STATUSES.map(getStatusClass), "merged"]) {
    assert.match(
      defined.get(status) ?? "",
      /^fill:#[0-9a-f]{6},stroke:#[0-9a-f]{6},color:#[0-9a-f]{6}/,
      status,
    );
  }
  assert.match(defined.get("skipped") ?? "", /stroke-dasharray/, "a skipped stage is drawn dashed");
  assert.equal(new Set(defined.values()).size >= 9, true, "statuses are told apart by colour");
});

test("renderMermaid puts stages of one status in one class line, their nodes separated by commas", () => {
  const text = renderMermaid(diamond, { statusOf: (id) => (id === "d" ? "executing" : "queued") });
  assert.match(text, /\n {2}class s0,s1,s2 queued\n {2}class s3 executing\n$/);
});
