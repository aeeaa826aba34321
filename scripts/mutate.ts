/**
 * `npm run mutate [-- <folder>[:<part>] …]`: mutation testing of loom's decision code with
 * StrykerJS (its TAP runner over `node:test` files), against the tests that guard it: one run per
 * folder, or per part for a folder measured in parts (`MUTATED_FOLDERS`). Incremental: a part's
 * mutants whose code and tests did not change since the last run keep their result
 * (`reports/mutation/<name>.incremental.json`, kept out of git). Prints each part's and each
 * folder's score (killed + timed out over mutants that ran; a folder's is the sum over its parts)
 * and writes the surviving mutants to `reports/mutation/<name>.survivors.txt`. Not part of
 * `npm test`: a whole run takes hours.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  MUTATED_FOLDERS,
  partsOf,
  scoreMutants,
  sumScores,
  type MutantReport,
  type MutationPart,
  type MutationScore,
} from "./score-mutants.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const REPORTS = path.join(ROOT, "reports/mutation");

function slug(folder: string): string {
  return folder.replaceAll("/", "-");
}

/** The name of a part's reports: the folder's for a folder measured whole, `<folder>.<part>` else. */
function reportName(folder: string, part: MutationPart): string {
  return part.name === slug(folder) ? part.name : `${slug(folder)}.${part.name}`;
}

/** Runs Stryker on one part; returns its JSON report. */
function mutatePart(name: string, part: MutationPart): MutantReport {
  const config = {
    // Each test file runs as a node process whose TAP output Stryker reads; coverage per file, so
    // a mutant runs only the test files that reached its code.
    testRunner: "tap",
    tap: { testFiles: part.tests, nodeArgs: ["--test-reporter=tap"] },
    mutate: part.files,
    coverageAnalysis: "perTest",
    // Both cores by default; LOOM_MUTATE_CONCURRENCY=1 leaves one to other work.
    concurrency: Number(process.env.LOOM_MUTATE_CONCURRENCY ?? 2),
    // A mutant times out after three times its test files' dry-run time plus 10 s (Stryker: 1.5
    // times plus 5 s). The real-git test files run slower beside a second worker than in the
    // lone dry run, and at the defaults a surviving mutant was counted "timed out", i.e. killed
    // (session 19: 15 of the learnings part's 25 survivors); a real endless loop is still caught.
    timeoutFactor: 3,
    timeoutMS: 10_000,
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
  if (run.status !== 0) throw new Error(`stryker failed on ${name} (exit ${run.status})`);
  return JSON.parse(readFileSync(path.join(REPORTS, `${name}.json`), "utf8")) as MutantReport;
}

function row(label: string, score: MutationScore): string {
  return `| ${label} | ${score.percent.toFixed(1)} % | ${score.killed} | ${score.timedOut} | ${score.survived} | ${score.noCoverage} | ${score.errors} |`;
}

function writeSurvivors(name: string, score: MutationScore): void {
  writeFileSync(path.join(REPORTS, `${name}.survivors.txt`), score.survivors.join("\n") + "\n");
}

/** `folder` or `folder:part` → the folder and the parts asked for (all when none is named). */
const asked = new Map<string, Set<string>>();
const unknown: string[] = [];
for (const arg of process.argv.slice(2)) {
  const [folder = "", part] = arg.split(":");
  const spec = MUTATED_FOLDERS[folder];
  if (spec === undefined || (part !== undefined && !partsOf(folder, spec).some((p) => p.name === part))) {
    unknown.push(arg);
    continue;
  }
  const parts = asked.get(folder) ?? new Set<string>();
  if (part !== undefined) parts.add(part);
  asked.set(folder, parts);
}
if (unknown.length > 0) {
  const choices = Object.entries(MUTATED_FOLDERS).flatMap(([folder, spec]) =>
    "parts" in spec ? [folder, ...spec.parts.map((part) => `${folder}:${part.name}`)] : [folder],
  );
  console.error(
    `npm run mutate: unknown folder or part ${unknown.join(", ")}; choose from: ${choices.join(", ")}`,
  );
  process.exit(2);
}
mkdirSync(REPORTS, { recursive: true });
const rows: string[] = [];
for (const [folder, spec] of Object.entries(MUTATED_FOLDERS)) {
  const wanted = asked.get(folder);
  if (asked.size > 0 && wanted === undefined) continue;
  const parts = partsOf(folder, spec);
  const chosen = wanted === undefined || wanted.size === 0 ? parts : parts.filter((p) => wanted.has(p.name));
  const scores: MutationScore[] = [];
  for (const part of chosen) {
    const name = reportName(folder, part);
    const score = scoreMutants(mutatePart(name, part));
    writeSurvivors(name, score);
    scores.push(score);
    if ("parts" in spec) rows.push(row(`${folder}: ${part.name}`, score));
  }
  // A folder's score only when every part of it ran: a sum over some parts is no folder score.
  if (chosen.length === parts.length) {
    const total = sumScores(scores);
    if ("parts" in spec) writeSurvivors(slug(folder), total);
    rows.push(row("parts" in spec ? `**${folder}**` : folder, total));
  }
}
console.log("\n| folder | score | killed | timed out | survived | no coverage | errors |");
console.log("|---|---:|---:|---:|---:|---:|---:|");
for (const line of rows) console.log(line);
