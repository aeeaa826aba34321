/**
 * `npm run release -- <owner/name> <version>`: releases loom as version `<version>` of the
 * repository `<owner/name>`, in two commits and a tag on the current branch. A reusable workflow
 * cannot refer to its own commit, so:
 *
 * 1. A = HEAD, which must hold `action/action.yml` and the built `action/dist`.
 * 2. Commit R: the stage workflows (`loom-stage.yml`, `loom-stage-oidc.yml`) use `<owner/name>/action@A`,
 *    and package.json says `<version>`. R is the release: the annotated tag `v<version>` points at it.
 * 3. Commit D: every example caller (`examples/*.yml`) and README's caller use
 *    `<owner/name>/.github/workflows/loom-stage[-oidc].yml@R`; the App's release table
 *    (`src/release/loom-releases.ts`) gets R as this version, speaking the contract of this tree
 *    (`MAIN_CONTRACT`), so the App knows the pin; and CHANGELOG.md's `## Unreleased` section becomes
 *    the release's entry (what to pin, then that section, or the commits since the previous release
 *    when it is missing or empty: the table's newest release HEAD contains, else the newest tag),
 *    with a new empty `## Unreleased` above it.
 *
 * Then it prints the two pushes that publish it: the branch, and the tag (a clone has no tags
 * unless they were pushed).
 *
 * Refuses a dirty tree, a HEAD without the action bundle, a malformed name or version, or a tag that
 * exists already, and changes nothing then.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { addReleaseRow, readReleaseRows } from "../src/release/add-release-row.ts";
import {
  addChangelogEntry,
  isReleaseVersion,
  renderChangelogEntry,
  takeUnreleased,
} from "../src/release/render-changelog-entry.ts";
import { MAIN_CONTRACT } from "../src/release/stage-contract.ts";
import { stampLoomRefs, type LoomRef } from "../src/release/stamp-loom-refs.ts";

const RELEASE_TABLE = "src/release/loom-releases.ts";

const git = (...args: string[]): string => execFileSync("git", args, { encoding: "utf8" }).trim();

/**
 * The previous release: the newest row of the release table whose commit HEAD contains (a clone
 * has no tags), else the newest tag reachable from HEAD that names a release (`v1.2.3`); null for
 * the first release. `tag` names it, `from` is where the commits since it start.
 */
function previousRelease(table: string): { tag: string; from: string } | null {
  const contained = readReleaseRows(table).filter(({ sha }) => {
    try {
      git("merge-base", "--is-ancestor", sha, "HEAD");
      return true;
    } catch (error) {
      // 1: not an ancestor; 128: a commit this clone does not have (another repository's release).
      if ([1, 128].includes((error as { status?: number }).status ?? -1)) return false;
      throw error;
    }
  });
  const row = contained.at(-1);
  if (row !== undefined) return { tag: `v${row.version}`, from: row.sha };
  const tags = git("tag", "--merged", "HEAD", "--sort=-creatordate", "--list", "v*").split("\n");
  const tag = tags.find((name) => isReleaseVersion(name.slice(1)));
  return tag === undefined ? null : { tag, from: tag };
}

function readText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "";
    throw error;
  }
}

function stampFiles(files: string[], kind: LoomRef, repository: string, sha: string): void {
  for (const file of files) {
    const { text, count } = stampLoomRefs(readFileSync(file, "utf8"), kind, repository, sha);
    if (count === 0) throw new Error(`${file} has no loom ${kind} reference to pin`);
    writeFileSync(file, text);
  }
}

function release(argv: string[]): string {
  const [repository, version, ...rest] = argv;
  if (repository === undefined || version === undefined || rest.length > 0)
    throw new Error(
      "usage: npm run release -- <owner/name> <version>, e.g. npm run release -- acme/loom 1.0.0",
    );
  if (!isReleaseVersion(version)) throw new Error(`"${version}" is not a version like 1.2.3`);
  const tag = `v${version}`;
  if (git("status", "--porcelain") !== "")
    throw new Error("the working tree has changes: commit or stash them first");
  if (git("tag", "--list", tag) !== "") throw new Error(`the tag ${tag} exists already`);
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
  const table = readFileSync(RELEASE_TABLE, "utf8");
  // Refuses a table it cannot extend, or one naming the version already, before anything is written.
  addReleaseRow(table, { version, repository, sha: action, contract: MAIN_CONTRACT });
  const previous = previousRelease(table);
  const subjects = git(
    "log",
    "--reverse",
    "--no-merges",
    "--format=%s",
    ...(previous ? [`${previous.from}..HEAD`] : []),
  )
    .split("\n")
    // loom's own release commits say nothing new about what changed.
    .filter((line) => line !== "" && !/^Release v\d/.test(line));
  stampFiles(stages, "action", repository, action);
  const pkg = JSON.parse(readFileSync("package.json", "utf8")) as Record<string, unknown>;
  writeFileSync("package.json", `${JSON.stringify({ ...pkg, version }, null, 2)}\n`);
  git(
    "commit",
    "-q",
    "-m",
    `Release ${tag}: the stage workflows use ${repository}/action@${action}`,
    "--",
    ...stages,
    "package.json",
  );
  const released = git("rev-parse", "HEAD");
  git("tag", "-a", tag, "-m", `loom ${tag}`, released);
  const date = git("log", "-1", "--format=%cs", released);
  const changelog = readText("CHANGELOG.md");
  const entry = renderChangelogEntry({
    version,
    date,
    repository,
    releaseSha: released,
    previousTag: previous?.tag ?? null,
    subjects,
    changes: takeUnreleased(changelog).unreleased ?? "",
  });
  writeFileSync("CHANGELOG.md", addChangelogEntry(changelog, entry));
  writeFileSync(
    RELEASE_TABLE,
    addReleaseRow(table, { version, repository, sha: released, contract: MAIN_CONTRACT }),
  );
  const examples = readdirSync("examples")
    .filter((name) => /\.ya?ml$/.test(name))
    .map((name) => `examples/${name}`)
    .sort();
  const callers = [...examples, "README.md"];
  stampFiles(callers, "stage-workflow", repository, released);
  git("add", "CHANGELOG.md");
  git(
    "commit",
    "-q",
    "-m",
    `Release ${tag}: callers pin ${repository}'s stage workflow at ${released}; the App knows it (contract ${MAIN_CONTRACT}); CHANGELOG`,
    "--",
    ...callers,
    "CHANGELOG.md",
    RELEASE_TABLE,
  );
  return released;
}

try {
  const released = release(process.argv.slice(2));
  const tag = `v${process.argv[3] ?? ""}`;
  const branch = git("rev-parse", "--abbrev-ref", "HEAD");
  console.log(`release commit ${released}, tagged ${tag}. Publish the branch and the tag:`);
  console.log(`  git push origin ${branch} && git push origin ${tag}`);
  console.log(`callers use: uses: ${process.argv[2] ?? ""}/.github/workflows/loom-stage.yml@${released}`);
} catch (error) {
  console.error(`release: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
