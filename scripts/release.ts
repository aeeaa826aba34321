/**
 * `npm run release -- <owner/name>`: pins loom's workflows to this repository's commits, in two commits
 * on the current branch. A reusable workflow cannot refer to its own commit, so:
 *
 * 1. A = HEAD, which must hold `action/action.yml` and the built `action/dist`.
 * 2. Commit R: the stage workflows (`loom-stage.yml`, `loom-stage-oidc.yml`) use `<owner/name>/action@A`.
 *    R is the release: tag it.
 * 3. Commit D: every example caller (`examples/*.yml`) and README's caller use
 *    `<owner/name>/.github/workflows/loom-stage[-oidc].yml@R`.
 *
 * Refuses a dirty tree or a HEAD without the action bundle, and changes nothing then.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { stampLoomRefs, type LoomRef } from "../src/release/stamp-loom-refs.ts";

const git = (...args: string[]): string => execFileSync("git", args, { encoding: "utf8" }).trim();

function stampFiles(files: string[], kind: LoomRef, repository: string, sha: string): void {
  for (const file of files) {
    const { text, count } = stampLoomRefs(readFileSync(file, "utf8"), kind, repository, sha);
    if (count === 0) throw new Error(`${file} has no loom ${kind} reference to pin`);
    writeFileSync(file, text);
  }
}

function release(argv: string[]): string {
  const [repository, ...rest] = argv;
  if (repository === undefined || rest.length > 0) throw new Error("usage: npm run release -- <owner/name>");
  if (git("status", "--porcelain") !== "")
    throw new Error("the working tree has changes: commit or stash them first");
  const action = git("rev-parse", "HEAD");
  for (const needed of ["action/action.yml", "action/dist/main.js"]) {
    try {
      git("cat-file", "-e", `${action}:${needed}`);
    } catch {
      throw new Error(`HEAD ${action.slice(0, 12)} has no ${needed}: run npm run build and commit it`);
    }
  }
  const stages = [".github/workflows/loom-stage.yml", ".github/workflows/loom-stage-oidc.yml"];
  stampLoomRefs("", "action", repository, action); // validates the name before anything is written
  stampFiles(stages, "action", repository, action);
  git(
    "commit",
    "-q",
    "-m",
    `Release: the stage workflows use ${repository}/action@${action}`,
    "--",
    ...stages,
  );
  const released = git("rev-parse", "HEAD");
  const examples = readdirSync("examples")
    .filter((name) => /\.ya?ml$/.test(name))
    .map((name) => `examples/${name}`)
    .sort();
  const callers = [...examples, "README.md"];
  stampFiles(callers, "stage-workflow", repository, released);
  git(
    "commit",
    "-q",
    "-m",
    `Release: callers pin ${repository}'s stage workflow at ${released}`,
    "--",
    ...callers,
  );
  return released;
}

try {
  const released = release(process.argv.slice(2));
  console.log(
    `release commit ${released}: tag it (git tag v<version> ${released}) and push the branch and the tag.`,
  );
  console.log(`callers use: uses: ${process.argv[2] ?? ""}/.github/workflows/loom-stage.yml@${released}`);
} catch (error) {
  console.error(`release: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
