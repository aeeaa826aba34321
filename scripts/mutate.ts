/**
 * `npm run mutate [-- <folder> …]`: mutation testing of loom's decision code with StrykerJS (its
 * TAP runner over `node:test` files), one folder at a time against the tests that guard it.
 * Incremental: a folder's mutants whose code and tests did not change since the last run keep
 * their result (`reports/mutation/<name>.incremental.json`, kept out of git). Prints each folder's
 * score (killed + timed out over mutants that ran) and writes the surviving mutants to
 * `reports/mutation/<name>.survivors.txt`. Not part of `npm test`: a whole run takes hours.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { MUTATED_FOLDERS, scoreMutants, type MutantReport } from "./score-mutants.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const REPORTS = path.join(ROOT, "reports/mutation");

function slug(folder: string): string {
  return folder.replaceAll("/", "-");
}

/** Runs Stryker on one folder; returns its JSON report. */
function mutateFolder(folder: string, tests: readonly string[]): MutantReport {
  const name = slug(folder);
  const config = {
    // Each test file runs as a node process whose TAP output Stryker reads; coverage per file, so
    // a mutant runs only the test files that reached its code.
    testRunner: "tap",
    tap: { testFiles: tests, nodeArgs: ["--test-reporter=tap"] },
    mutate: [`${folder}/**/*.ts`],
    coverageAnalysis: "perTest",
    // Both cores by default; LOOM_MUTATE_CONCURRENCY=1 leaves one to other work.
    concurrency: Number(process.env.LOOM_MUTATE_CONCURRENCY ?? 2),
    incremental: true,
    incrementalFile: `reports/mutation/${name}.incremental.json`,
    reporters: ["clear-text", "json", "progress-append-only"],
    jsonReporter: { fileName: `reports/mutation/${name}.json` },
    clearTextReporter: { reportMutants: false },
    ignorePatterns: ["data", ".data", "coverage", "reports", ".stryker-tmp"],
    tempDirName: ".stryker-tmp",
    cleanTempDir: "always",
  };
  const configFile = path.join(REPORTS, `${name}.stryker.json`);
  writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
  const run = spawnSync(path.join(ROOT, "node_modules/.bin/stryker"), ["run", configFile], {
    cwd: ROOT,
    stdio: "inherit",
  });
  if (run.status !== 0) throw new Error(`stryker failed on ${folder} (exit ${run.status})`);
  return JSON.parse(readFileSync(path.join(REPORTS, `${name}.json`), "utf8")) as MutantReport;
}

const asked = process.argv.slice(2);
const unknown = asked.filter((folder) => !(folder in MUTATED_FOLDERS));
if (unknown.length > 0) {
  console.error(
    `npm run mutate: unknown folder ${unknown.join(", ")}; choose from: ${Object.keys(MUTATED_FOLDERS).join(", ")}`,
  );
  process.exit(2);
}
mkdirSync(REPORTS, { recursive: true });
const rows: string[] = [];
for (const [folder, tests] of Object.entries(MUTATED_FOLDERS)) {
  if (asked.length > 0 && !asked.includes(folder)) continue;
  const score = scoreMutants(mutateFolder(folder, tests));
  writeFileSync(path.join(REPORTS, `${slug(folder)}.survivors.txt`), score.survivors.join("\n") + "\n");
  rows.push(
    `| ${folder} | ${score.percent.toFixed(1)} % | ${score.killed} | ${score.timedOut} | ${score.survived} | ${score.noCoverage} | ${score.errors} |`,
  );
}
console.log("\n| folder | score | killed | timed out | survived | no coverage | errors |");
console.log("|---|---:|---:|---:|---:|---:|---:|");
for (const row of rows) console.log(row);
