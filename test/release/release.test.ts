import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import { MAIN_CONTRACT } from "../../src/release/stage-contract.ts";
import { stampLoomRefs } from "../../src/release/stamp-loom-refs.ts";
import { checkWorkflow } from "../workflows/check-workflow.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const PLACEHOLDER = "0".repeat(40);
const STAGE_WORKFLOWS = [".github/workflows/loom-stage.yml", ".github/workflows/loom-stage-oidc.yml"];
const EXAMPLES = readdirSync(join(ROOT, "examples"))
  .filter((name) => name.endsWith(".yml"))
  .map((name) => `examples/${name}`);
const RELEASE_TABLE = "src/release/loom-releases.ts";
const SHIPPED = [
  ...STAGE_WORKFLOWS,
  ...EXAMPLES,
  "README.md",
  "action/action.yml",
  "package.json",
  RELEASE_TABLE,
];

describe("stampLoomRefs", () => {
  const stage = readFileSync(join(ROOT, ".github/workflows/loom-stage.yml"), "utf8");

  it("pins both action steps of the stage workflow and no other action", () => {
    const sha = "a".repeat(40);
    const { text, count } = stampLoomRefs(stage, "action", "acme/loom", sha);
    assert.equal(count, 2);
    assert.equal(text.match(/acme\/loom\/action@a{40} # loom release/g)?.length, 2);
    assert.ok(
      text.includes("actions/checkout@08c6903cd8c0fde910a37f88322edcfb5dd907a8"),
      "checkout untouched",
    );
    assert.ok(!text.includes(PLACEHOLDER));
  });

  it("pins a caller of either stage workflow, keeping which one it calls", () => {
    const callers = [
      "uses: loom-dev/loom/.github/workflows/loom-stage.yml@" + PLACEHOLDER,
      "uses: loom-dev/loom/.github/workflows/loom-stage-oidc.yml@" + PLACEHOLDER,
      "uses: loom-dev/loom/.github/workflows/other.yml@" + PLACEHOLDER,
    ].join("\n");
    const { text, count } = stampLoomRefs(callers, "stage-workflow", "acme/loom", "c".repeat(40));
    assert.equal(count, 2);
    assert.deepEqual(text.split("\n"), [
      `uses: acme/loom/.github/workflows/loom-stage.yml@${"c".repeat(40)}`,
      `uses: acme/loom/.github/workflows/loom-stage-oidc.yml@${"c".repeat(40)}`,
      `uses: loom-dev/loom/.github/workflows/other.yml@${PLACEHOLDER}`,
    ]);
  });

  it("re-pins an already released reference", () => {
    const once = stampLoomRefs(stage, "action", "acme/loom", "a".repeat(40)).text;
    const twice = stampLoomRefs(once, "action", "other/loom-fork", "b".repeat(40));
    assert.equal(twice.count, 2);
    assert.ok(!twice.text.includes("acme/loom"));
  });

  it("refuses a tag, a short SHA or a malformed repository", () => {
    assert.throws(
      () => stampLoomRefs(stage, "action", "acme/loom", "v1.0.0"),
      /full 40-character commit SHA/,
    );
    assert.throws(() => stampLoomRefs(stage, "action", "acme/loom", "abc1234"), /full 40-character/);
    assert.throws(() => stampLoomRefs(stage, "action", "acme", "a".repeat(40)), /owner\/name/);
    assert.throws(() => stampLoomRefs(stage, "action", "acme/loom; rm -rf", "a".repeat(40)), /owner\/name/);
  });
});

describe("npm run release", () => {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** A repository holding loom's shipped workflow files and, unless `withDist` is false, the bundle. */
  function repository(withDist = true): string {
    const dir = mkdtempSync(join(tmpdir(), "loom-release-"));
    dirs.push(dir);
    for (const file of SHIPPED) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      cpSync(join(ROOT, file), join(dir, file));
    }
    if (withDist) {
      mkdirSync(join(dir, "action/dist"), { recursive: true });
      writeFileSync(join(dir, "action/dist/main.js"), "// bundle\n");
    }
    const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, encoding: "utf8" }).trim();
    git("init", "-q", "-b", "main");
    git("config", "user.name", "maintainer");
    git("config", "user.email", "maintainer@example.invalid");
    git("add", ".");
    git("commit", "-q", "-m", "loom");
    return dir;
  }
  const run = (dir: string, ...args: string[]) =>
    spawnSync(process.execPath, [join(ROOT, "scripts/release.ts"), ...args], { cwd: dir, encoding: "utf8" });
  const git = (dir: string, ...args: string[]) =>
    execFileSync("git", args, { cwd: dir, encoding: "utf8" }).trim();

  it("pins both stage workflows to the bundle's commit and every example caller to the release commit", () => {
    const dir = repository();
    const bundle = git(dir, "rev-parse", "HEAD");
    const result = run(dir, "acme/loom", "1.0.0");
    assert.equal(result.status, 0, result.stderr);
    const [docs, release, base] = git(dir, "log", "--format=%H", "-3").split("\n");
    assert.equal(base, bundle);
    assert.ok(result.stdout.includes(`release commit ${release}, tagged v1.0.0`));
    assert.ok(
      result.stdout.includes("\n  git push origin main && git push origin v1.0.0\n"),
      `the exact pushes of the branch and the tag: ${result.stdout}`,
    );
    assert.equal(git(dir, "rev-parse", "v1.0.0^{commit}"), release, "the tag names the release commit");
    assert.equal(git(dir, "cat-file", "-t", "v1.0.0"), "tag", "an annotated tag");
    assert.equal(JSON.parse(git(dir, "show", `${release}:package.json`)).version, "1.0.0");
    const changelog = git(dir, "show", `${docs}:CHANGELOG.md`);
    assert.match(changelog, /^# Changelog\n/);
    assert.match(changelog, /^## v1\.0\.0 \(\d{4}-\d{2}-\d{2}\)$/m);
    assert.ok(changelog.includes(`uses: acme/loom/.github/workflows/loom-stage.yml@${release}`));
    assert.match(changelog, /First release\. What it holds:\n\n- loom$/m);
    assert.match(changelog, /^## Unreleased\n\n## v1\.0\.0 /m, "an empty Unreleased section above the entry");
    // The App's release table knows the release commit, speaking this tree's contract.
    const table = git(dir, "show", `${docs}:${RELEASE_TABLE}`);
    assert.equal(
      git(dir, "show", `${release}:${RELEASE_TABLE}`),
      readFileSync(join(ROOT, RELEASE_TABLE), "utf8").trimEnd(),
    );
    assert.ok(
      table.includes(
        `  {\n    version: "1.0.0",\n    repository: "acme/loom",\n    sha: "${release}",\n    contract: "${MAIN_CONTRACT}",\n  },\n];`,
      ),
      table,
    );
    for (const [file, steps] of [
      [".github/workflows/loom-stage.yml", 2],
      [".github/workflows/loom-stage-oidc.yml", 3],
    ] as const) {
      const stageAtRelease = git(dir, "show", `${release}:${file}`);
      assert.equal(stageAtRelease.match(new RegExp(`acme/loom/action@${bundle}`, "g"))?.length, steps, file);
      assert.ok(!stageAtRelease.includes(PLACEHOLDER), `${file} has no placeholder left`);
      assert.deepEqual(checkWorkflow(stageAtRelease), [], `${file} at the release keeps the static rules`);
    }
    assert.ok(EXAMPLES.length >= 5, "every example caller is released");
    for (const file of [...EXAMPLES, "README.md"]) {
      const text = git(dir, "show", `${docs}:${file}`);
      assert.match(
        text,
        new RegExp(`acme/loom/\\.github/workflows/loom-stage(-oidc)?\\.yml@${release}`),
        file,
      );
      assert.ok(!text.includes(PLACEHOLDER), `${file} has no placeholder left`);
    }
    for (const file of EXAMPLES) {
      const before = readFileSync(join(ROOT, file), "utf8").includes("loom-stage-oidc.yml");
      const after = git(dir, "show", `${docs}:${file}`).includes(`loom-stage-oidc.yml@${release}`);
      assert.equal(after, before, `${file} still calls the same stage workflow`);
    }
    assert.equal(git(dir, "status", "--porcelain"), "");
  });

  it("a release's entry is CHANGELOG.md's Unreleased section, which starts empty again above it", () => {
    const dir = repository();
    const title = "# Changelog\n\nWhat changed for users.\n";
    const older = "## v0.9.0 (2026-01-01)\n\nOld entry.\n";
    writeFileSync(
      join(dir, "CHANGELOG.md"),
      `${title}\n## Unreleased\n\n- The App reads the caller's pin.\n- Pushing the tag is a release step.\n\n${older}`,
    );
    git(dir, "add", "CHANGELOG.md");
    git(dir, "commit", "-q", "-m", "CHANGELOG: unreleased changes");
    const result = run(dir, "acme/loom", "1.0.0");
    assert.equal(result.status, 0, result.stderr);
    const release = git(dir, "rev-parse", "v1.0.0^{commit}");
    const changelog = readFileSync(join(dir, "CHANGELOG.md"), "utf8");
    assert.equal(
      changelog,
      [
        title,
        "## Unreleased",
        "",
        `## v1.0.0 (${git(dir, "log", "-1", "--format=%cs", release)})`,
        "",
        `Release commit \`${release}\` (tag \`v1.0.0\`). Callers pin it:`,
        "",
        "```yaml",
        `uses: acme/loom/.github/workflows/loom-stage.yml@${release}`,
        "```",
        "",
        "- The App reads the caller's pin.",
        "- Pushing the tag is a release step.",
        "",
        older,
      ].join("\n"),
      "the title kept, the section's text the entry, the commit subjects left out, the older entry below",
    );
  });

  it("a later release lists the commits since the previous one, newest entry first, also in a clone without tags", () => {
    const dir = repository();
    assert.equal(run(dir, "acme/loom", "1.0.0").status, 0);
    // A clone has no tags: the release table names the previous release commit.
    git(dir, "tag", "-d", "v1.0.0");
    writeFileSync(join(dir, "README.md"), `${readFileSync(join(dir, "README.md"), "utf8")}\nMore.\n`);
    git(dir, "commit", "-q", "-am", "README: say more");
    const result = run(dir, "acme/loom", "1.1.0");
    assert.equal(result.status, 0, result.stderr);
    const release = git(dir, "rev-parse", "v1.1.0^{commit}");
    const changelog = readFileSync(join(dir, "CHANGELOG.md"), "utf8");
    const newest = changelog.indexOf("## v1.1.0");
    assert.ok(newest > 0 && newest < changelog.indexOf("## v1.0.0"), "newest first, the older entry kept");
    const entry = changelog.slice(newest, changelog.indexOf("## v1.0.0"));
    assert.ok(entry.includes(`loom-stage.yml@${release}`));
    assert.match(entry, /Changes since v1\.0\.0:\n\n- README: say more\n/);
    assert.match(readFileSync(join(dir, "README.md"), "utf8"), new RegExp(`loom-stage\\.yml@${release}`));
  });

  it("refuses a malformed version or a tag that exists, and changes nothing", () => {
    const dir = repository();
    const head = git(dir, "rev-parse", "HEAD");
    const badVersion = run(dir, "acme/loom", "one");
    assert.equal(badVersion.status, 1);
    assert.match(badVersion.stderr, /"one" is not a version like 1\.2\.3/);
    const missing = run(dir, "acme/loom");
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /usage: npm run release -- <owner\/name> <version>/);
    git(dir, "tag", "v2.0.0");
    const taken = run(dir, "acme/loom", "2.0.0");
    assert.equal(taken.status, 1);
    assert.match(taken.stderr, /the tag v2\.0\.0 exists already/);
    const known = run(dir, "acme/loom", "0.3.0");
    assert.equal(known.status, 1);
    assert.match(
      known.stderr,
      /the release table already has version: "0\.3\.0"/,
      "a clone has no tags: the table knows",
    );
    assert.equal(git(dir, "rev-parse", "HEAD"), head);
    assert.equal(git(dir, "status", "--porcelain"), "");
  });

  it("changes nothing when HEAD has no action bundle, the tree is dirty or the name is bad", () => {
    const noDist = repository(false);
    const head = git(noDist, "rev-parse", "HEAD");
    const refused = run(noDist, "acme/loom", "1.0.0");
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /no action\/dist\/main\.js: run npm run build/);
    assert.equal(git(noDist, "rev-parse", "HEAD"), head);

    const dirty = repository();
    writeFileSync(join(dirty, "README.md"), "edited\n");
    const refusedDirty = run(dirty, "acme/loom", "1.0.0");
    assert.equal(refusedDirty.status, 1);
    assert.match(refusedDirty.stderr, /working tree has changes/);
    assert.equal(readFileSync(join(dirty, "README.md"), "utf8"), "edited\n", "the user's edit is kept");

    const badName = repository();
    const refusedName = run(badName, "not a repo", "1.0.0");
    assert.equal(refusedName.status, 1);
    assert.match(refusedName.stderr, /not an owner\/name repository/);
    assert.equal(git(badName, "status", "--porcelain"), "");
  });
});
