import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import { stampLoomRefs } from "../../src/release/stamp-loom-refs.ts";
import { checkWorkflow } from "../workflows/check-workflow.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const PLACEHOLDER = "0".repeat(40);
const STAGE_WORKFLOWS = [".github/workflows/loom-stage.yml", ".github/workflows/loom-stage-oidc.yml"];
const EXAMPLES = readdirSync(join(ROOT, "examples"))
  .filter((name) => name.endsWith(".yml"))
  .map((name) => `examples/${name}`);
const SHIPPED = [...STAGE_WORKFLOWS, ...EXAMPLES, "README.md", "action/action.yml"];

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
    const result = run(dir, "acme/loom");
    assert.equal(result.status, 0, result.stderr);
    const [docs, release, base] = git(dir, "log", "--format=%H", "-3").split("\n");
    assert.equal(base, bundle);
    assert.ok(result.stdout.includes(`release commit ${release}`));
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

  it("changes nothing when HEAD has no action bundle, the tree is dirty or the name is bad", () => {
    const noDist = repository(false);
    const head = git(noDist, "rev-parse", "HEAD");
    const refused = run(noDist, "acme/loom");
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /no action\/dist\/main\.js: run npm run build/);
    assert.equal(git(noDist, "rev-parse", "HEAD"), head);

    const dirty = repository();
    writeFileSync(join(dirty, "README.md"), "edited\n");
    const refusedDirty = run(dirty, "acme/loom");
    assert.equal(refusedDirty.status, 1);
    assert.match(refusedDirty.stderr, /working tree has changes/);
    assert.equal(readFileSync(join(dirty, "README.md"), "utf8"), "edited\n", "the user's edit is kept");

    const badName = repository();
    const refusedName = run(badName, "not a repo");
    assert.equal(refusedName.status, 1);
    assert.match(refusedName.stderr, /not an owner\/name repository/);
    assert.equal(git(badName, "status", "--porcelain"), "");
  });
});
