import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { test } from "node:test";

const ROOT = path.resolve(import.meta.dirname, "../..");

/*
 * `npm run bench -- <section>` as the README and BENCHMARKS.md show it, on the one section that
 * needs no emulator, Claude Code or app process: it runs, prints its table and fills its row of the
 * targets table. What the numbers are is the benchmark's to say, not this test's.
 */
test("npm run bench -- reads prints its table and its row of the targets table", () => {
  const run = spawnSync("npm", ["run", "--silent", "bench", "--", "reads"], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 120_000,
  });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /## reads of one long session at production cadence/);
  assert.match(run.stdout, /\| 60 min \(simulated\) \| 60 s \| every 60 s \| \d+ \| \d+ \| \d+\.\d\d \|/);
  const row = run.stdout
    .split("\n")
    .find((line) => line.startsWith("| run and heartbeat reads per running stage"));
  assert.ok(row, "the targets table has the row");
  assert.match(row, /\| \d+\.\d\d a minute over a 60-minute session/);
  assert.match(
    run.stdout,
    /\| App requests per stage: .* \| — not measured in this run \|/,
    "other rows say so",
  );
  assert.notEqual(run.stdout.match(/^\| [^|]+ \| [^|]+ \| [^|]+ \| (✅ pass|❌ miss) \|$/m), null, "a mark");
});
