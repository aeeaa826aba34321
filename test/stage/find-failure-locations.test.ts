import assert from "node:assert/strict";
import { test } from "node:test";
import { findFailureLocations, MAX_LOCATIONS_PER_CHECK } from "../../src/stage/find-failure-locations.ts";

const workspace = "/work/repo";
const files = new Set([
  "/work/repo/src/a.ts",
  "/work/repo/pkg/lib/b.py",
  "/work/repo/node_modules/x/i.js",
  "/work/repo/tests/c_test.go",
]);
const isFile = (p: string) => files.has(p);

test("finds file:line[:column] of compilers, linters, test runners and tsc, relative to the checkout", () => {
  const output = [
    "src/a.ts:12:5 - error TS2322: Type 'string' is not assignable to type 'number'.",
    '  File "/work/repo/pkg/lib/b.py", line 3 -> also /work/repo/pkg/lib/b.py:3',
    "    at Object.<anonymous> (file:///work/repo/src/a.ts:40:11)",
    "src/a.ts(7,2): error TS1005: ';' expected.",
    "--- FAIL: TestX (0.00s)\n    c_test.go:9: got 1, want 2",
  ].join("\n");
  assert.deepEqual(findFailureLocations(output, { cwd: "/work/repo", workspace }, isFile), [
    { path: "src/a.ts", line: 12, column: 5 },
    { path: "pkg/lib/b.py", line: 3 },
    { path: "src/a.ts", line: 40, column: 11 },
    { path: "src/a.ts", line: 7, column: 2 },
  ]);
  // From a stage's working_dir, relative paths are the working_dir's.
  assert.deepEqual(
    findFailureLocations("c_test.go:9: got 1", { cwd: "/work/repo/tests", workspace }, isFile),
    [{ path: "tests/c_test.go", line: 9 }],
  );
});

test("leaves out what is not a file of the checkout: outside it, node_modules, unknown files, line 0, repeats", () => {
  const output = [
    "/etc/passwd:1",
    "../outside.ts:3:1",
    "node_modules/x/i.js:5:3",
    "src/missing.ts:4:4",
    "src/a.ts:0",
    "src/a.ts:8:1",
    "src/a.ts:8:9",
    "http://localhost:3000 and 12:30:45 and version 1.2.3:4",
  ].join("\n");
  assert.deepEqual(findFailureLocations(output, { cwd: "/work/repo", workspace }, isFile), [
    { path: "src/a.ts", line: 8, column: 1 },
  ]);
});

test("keeps at most a bounded number of locations per check", () => {
  const output = Array.from({ length: 40 }, (_, i) => `src/a.ts:${i + 1}:1 error`).join("\n");
  assert.equal(
    findFailureLocations(output, { cwd: workspace, workspace }, isFile).length,
    MAX_LOCATIONS_PER_CHECK,
  );
});
