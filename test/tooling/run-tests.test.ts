import assert from "node:assert/strict";
import { globSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { partitionTests, SHARED } from "../../scripts/run-tests.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");

test("npm run test:only runs every test file once: the shared folders in one process, the rest isolated", () => {
  const files = globSync("test/**/*.test.ts", { cwd: ROOT }).sort();
  const { shared, isolated } = partitionTests(files);
  assert.deepEqual([...shared, ...isolated].sort(), files, "every file, once");
  assert.ok(shared.some((f) => f.startsWith("test/orchestrator/")));
  assert.ok(isolated.includes("test/tooling/run-tests.test.ts"));
  assert.ok(isolated.every((f) => !SHARED.has(f.split("/")[1] ?? "")));
  // End-to-end runs, real processes and services stay isolated.
  for (const folder of ["e2e", "action", "emulator", "publish", "security", "store", "session", "cli"])
    assert.ok(!SHARED.has(folder), folder);
});

test("a folder is shared by its exact name, not by a prefix", () => {
  const { shared, isolated } = partitionTests([
    "test/app/a.test.ts",
    "test/apple/b.test.ts",
    "test/e2e/c.test.ts",
    "test/app/deep/d.test.ts",
  ]);
  assert.deepEqual(shared, ["test/app/a.test.ts", "test/app/deep/d.test.ts"]);
  assert.deepEqual(isolated, ["test/e2e/c.test.ts", "test/apple/b.test.ts"]);
});

test("isolated files of the long end-to-end folders start first, each folder in its own order", () => {
  const { isolated } = partitionTests([
    "test/action/a.test.ts",
    "test/e2e/b.test.ts",
    "test/publish/c.test.ts",
    "test/cli/d.test.ts",
    "test/e2e/e.test.ts",
    "test/security/f.test.ts",
  ]);
  assert.deepEqual(isolated, [
    "test/e2e/b.test.ts",
    "test/e2e/e.test.ts",
    "test/security/f.test.ts",
    "test/publish/c.test.ts",
    "test/action/a.test.ts",
    "test/cli/d.test.ts",
  ]);
});
