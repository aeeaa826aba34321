import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { readRepoConfig } from "../../app/engine/read-repo-config.ts";
import { EffectError } from "../../app/github/effect-context.ts";
import { createClient, type Client } from "../emulator/emulator-fixture.ts";
import { startEmulator, type Emulator } from "../emulator/start-emulator.ts";

/**
 * `.github/loom.yml` through Probot's config plugin (`octokit.config.get`) against the emulator:
 * the repository's default branch, the owner's `.github` repository, `_extends` across
 * repositories, 404s.
 */
describe("the repository config is read through Probot's config plugin", () => {
  let emulator: Emulator;
  let octokit: Client;
  const commit = async (fullName: string, files: Record<string, string | null>, branch = "main") => {
    const repo = emulator.repo(fullName);
    const parent = (await repo.git.readBranch(branch)) ?? (await repo.git.resolve("main"));
    const sha = await repo.git.commitFiles({ parent, files, message: "config" });
    await repo.git.updateRef(`refs/heads/${branch}`, sha);
  };
  const read = (name: string) => readRepoConfig(octokit, { owner: "acme", repo: name }, "main");

  before(async () => {
    emulator = await startEmulator({
      repos: [
        {
          owner: "acme",
          name: "widgets",
          files: { ".github/loom.yml": "_extends: .github\nmax_parallel: 2\n" },
        },
        {
          owner: "acme",
          name: ".github",
          files: { ".github/loom.yml": "max_parallel: 8\nlabel_prefix: acme\n" },
        },
        { owner: "acme", name: "bare", files: { "README.md": "# bare\n" } },
        { owner: "acme", name: "broken", files: { ".github/loom.yml": "retry: [\n" } },
        { owner: "acme", name: "dangling", files: { ".github/loom.yml": "_extends: acme/missing\n" } },
        { owner: "acme", name: "folder", files: { ".github/loom.yml/x": "y\n" } },
        { owner: "acme", name: "circle", files: { ".github/loom.yml": "_extends: acme/circle2\n" } },
        { owner: "acme", name: "circle2", files: { ".github/loom.yml": "_extends: acme/circle\n" } },
      ],
    });
    octokit = createClient(emulator);
  });
  after(async () => {
    await emulator.close();
  });

  it("merges the repository's file over the file its _extends names, from the default branch", async () => {
    await commit("acme/widgets", { ".github/loom.yml": "max_parallel: 99\n" }, "feature");
    const result = await read("widgets");
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.config.max_parallel, 2);
    assert.equal(result.config.label_prefix, "acme");
  });

  it("uses the owner's .github repository when the repository has no file", async () => {
    const result = await read("bare");
    assert.ok(result.ok);
    assert.equal(result.config.label_prefix, "acme");
  });

  it("reports invalid YAML with its line, and an _extends loom cannot read, instead of using defaults", async () => {
    const broken = await read("broken");
    assert.ok(!broken.ok);
    // The plugin's own words, without its "[@probot/octokit-plugin-config]" tag, and YAML's reason.
    assert.match(
      broken.problems[0]?.message ?? "",
      /^Configuration could not be parsed from \S+acme\/broken\S+ \(invalid YAML\): Flow sequence/,
    );
    assert.equal(broken.problems[0]?.line, 2, "the line YAML names");
    const dangling = await read("dangling");
    assert.ok(!dangling.ok);
    assert.match(dangling.problems[0]?.message ?? "", /_extends names acme\/missing:\.github\/loom\.yml/);
  });

  it("reports the plugin's other refusals (a directory, a circular _extends) in its words, with no line", async () => {
    const folder = await read("folder");
    assert.ok(!folder.ok);
    assert.deepEqual(folder.problems.length, 1);
    assert.match(
      folder.problems[0]?.message ?? "",
      /^\S+acme\/folder\S+ exists, but is either a directory or a submodule/,
    );
    assert.equal(folder.problems[0]?.line, null);
    const circle = await read("circle");
    assert.ok(!circle.ok);
    assert.match(circle.problems[0]?.message ?? "", /^Recursion detected/);
    assert.equal(circle.problems[0]?.line, null);
  });

  it("refuses session caps inherited from another repository", async () => {
    await commit("acme/.github", { ".github/loom.yml": "session:\n  max_budget_usd: 5\n" });
    const result = await read("widgets");
    assert.ok(!result.ok);
    assert.match(result.problems[0]?.message ?? "", /session: set it in this repository's own/);
    await commit("acme/.github", { ".github/loom.yml": "max_parallel: 8\nlabel_prefix: acme\n" });
  });

  it("throws (the delivery is retried) when GitHub fails, never falling back to the defaults", async () => {
    emulator.faults.route({ method: "GET", path: /\/contents\//, type: "status", status: 502, times: 1 });
    await assert.rejects(
      read("widgets"),
      (error: unknown) =>
        error instanceof EffectError && /^reading \.github\/loom\.yml: 502/.test(error.message),
    );
  });

  it("made only requests GitHub's OpenAPI description allows", () => {
    emulator.assertNoViolations();
  });
});
