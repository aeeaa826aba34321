import { test } from "node:test";
import assert from "node:assert/strict";
import { normalizeLabels, parseLabel } from "../../src/commands/parse-label.ts";

test("loom's labels are read under the default and a configured prefix", () => {
  const cases: [string, string, ReturnType<typeof parseLabel>][] = [
    ["loom:skip:docs", "loom", { kind: "skip", stageId: "docs" }],
    ["loom:block:build", "loom", { kind: "block", stageId: "build" }],
    ["loom:hold", "loom", { kind: "hold" }],
    ["ci:hold", "ci", { kind: "hold" }],
    ["loom:hold", "ci", null],
    ["loom:skip:", "loom", null],
    ["bug", "loom", null],
    ["loom:frobnicate:x", "loom", null],
  ];
  for (const [label, prefix, expected] of cases) assert.deepEqual(parseLabel(label, prefix), expected, label);
});

test("each plan gets the loom labels meant for it, qualifiers removed, other labels dropped", () => {
  const labels = [
    "bug",
    "ci:skip:docs",
    "ci:block:PLAN-a/build",
    "ci:block:PLAN-b/build",
    "ci:hold",
    "loom:hold",
  ];
  assert.deepEqual(normalizeLabels(labels, "ci", "PLAN-a"), ["ci:block:build", "ci:hold", "ci:skip:docs"]);
});
