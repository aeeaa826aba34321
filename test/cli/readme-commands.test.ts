import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { REPO_ROOT, runShell } from "./run-loom.ts";

/**
 * The README's "Validating a plan offline" commands, as written there: each line runs through the
 * shell from the loom checkout, with `path/to/` pointing at a directory holding the README's
 * example plan (`PLAN-cache.md`, copied from the "Plan format" section).
 */
const README_COMMANDS = {
  validate:
    "node bin/loom.js validate path/to/PLAN-cache.md            # compiler-style: file:line:column: error: …",
  directory:
    "node bin/loom.js validate path/to/doc/plans                # every PLAN-*.md (also IN_PROGRESS-/DONE-) under it",
  json: "node bin/loom.js validate path/to/PLAN-cache.md --json     # one JSON object; exit 0 valid, 1 invalid, 2 bad usage",
  github: "node bin/loom.js validate path/to/doc/plans --format github  # annotations, in a workflow step",
  graph: "node bin/loom.js graph path/to/PLAN-cache.md               # the stage DAG as mermaid",
  prompt: "node bin/loom.js prompt path/to/PLAN-cache.md cache-core   # the prompt a session would get",
  help: "node bin/loom.js help validate                             # a command's options (or: validate --help)",
  npx: "npx loom validate path/to/PLAN-cache.md",
} as const;

/** The README's example plan ("Plan format"). */
const CACHE_PLAN = `# Plan: Add a cache

<!-- loom METADATA -->

\`\`\`yaml
loom:
  version: 1
  stages:
    - id: cache-core
      name: "Cache core"
      working_dir: "."
      acceptance:
        - "npm test -- cache"
      files: ["src/cache/**"]
    - id: cache-wiring
      name: "Wire the cache in"
      dependencies: [cache-core]
      acceptance:
        - command: "npm run build"
          exit_code: 0
      wiring:
        - source: src/server.ts
          pattern: "createCache\\\\("
    - id: integration-verify
      name: "Integration verify"
      dependencies: [cache-wiring]
      acceptance: ["npm test"]
\`\`\`

<!-- END loom METADATA -->
`;

const work = mkdtempSync(join(tmpdir(), "loom-readme-"));
after(() => rmSync(work, { recursive: true, force: true }));
const pathTo = join(work, "path/to");
mkdirSync(join(pathTo, "doc/plans"), { recursive: true });
writeFileSync(join(pathTo, "PLAN-cache.md"), CACHE_PLAN);
writeFileSync(join(pathTo, "doc/plans/PLAN-cache.md"), CACHE_PLAN);

const run = (command: string) => runShell(command.replaceAll("path/to/", `${pathTo}/`));

describe("the README's CLI commands work as written", () => {
  it("validate: compiler-style warnings and the summary, exit 0", () => {
    const { code, stdout, stderr } = run(README_COMMANDS.validate);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /PLAN-cache\.md: valid plan "Add a cache": 3 stages on 3 levels, \d+ warnings?\n$/);
  });

  it("validate a directory: the plans under it", () => {
    const { code, stdout, stderr } = run(README_COMMANDS.directory);
    assert.equal(code, 0, stderr);
    assert.ok(stdout.includes(`${pathTo}/doc/plans/PLAN-cache.md: valid plan "Add a cache"`), stdout);
  });

  it("--json: one JSON object", () => {
    const { code, stdout } = run(README_COMMANDS.json);
    assert.equal(code, 0);
    const report = JSON.parse(stdout) as { ok: boolean; stages: { id: string; level: number }[] };
    assert.equal(report.ok, true);
    assert.deepEqual(
      report.stages.map((s) => [s.id, s.level]),
      [
        ["cache-core", 0],
        ["cache-wiring", 1],
        ["integration-verify", 2],
      ],
    );
  });

  it("--format github: workflow commands and the summary", () => {
    const { code, stdout } = run(README_COMMANDS.github);
    assert.equal(code, 0);
    for (const line of stdout.trimEnd().split("\n").slice(0, -1)) {
      assert.match(line, /^::(error|warning) title=loom%3A PLAN-cache,file=[^,]+,line=\d+,col=\d+::/);
    }
    assert.match(stdout, /PLAN-cache\.md: valid plan "Add a cache"/);
  });

  it("graph: mermaid", () => {
    const { code, stdout } = run(README_COMMANDS.graph);
    assert.equal(code, 0);
    assert.match(stdout, /^graph TD\n/);
    assert.equal(stdout.match(/ --> /g)?.length, 2);
  });

  it("prompt: the stage's prompt", () => {
    const { code, stdout, stderr } = run(README_COMMANDS.prompt);
    assert.equal(code, 0, stderr);
    assert.ok(stdout.includes("cache-core"));
    assert.ok(stdout.includes("npm test -- cache"));
  });

  it("help validate: the command's options", () => {
    const { code, stdout } = run(README_COMMANDS.help);
    assert.equal(code, 0);
    assert.match(stdout, /^usage: loom validate /);
    assert.match(stdout, /--format github/);
  });

  it("npx loom, from the loom checkout, runs the checkout's own CLI (never the npm package named loom)", () => {
    const { code, stdout, stderr } = run(README_COMMANDS.npx);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /PLAN-cache\.md: valid plan "Add a cache"/);
  });
});

/** A Node.js older than 24 on this machine (the system one), to run the entry with. */
function findOldNode(): string | null {
  for (const candidate of ["/usr/bin/node", "/usr/local/bin/node", "/bin/node"]) {
    if (!existsSync(candidate)) continue;
    const version = spawnSync(candidate, ["--version"], { encoding: "utf8" }).stdout.trim();
    const major = Number(/^v(\d+)\./.exec(version)?.[1]);
    if (major < 24) return candidate;
  }
  return null;
}
const oldNode = findOldNode();

describe(
  "on Node.js older than 24",
  { skip: oldNode ? false : "no Node.js older than 24 on this machine" },
  () => {
    it("bin/loom.js says what to do, without a stack trace, exit 1", () => {
      const result = spawnSync(
        oldNode ?? "node",
        ["bin/loom.js", "validate", join(pathTo, "PLAN-cache.md")],
        {
          cwd: REPO_ROOT,
          encoding: "utf8",
        },
      );
      const version = spawnSync(oldNode ?? "node", ["--version"], { encoding: "utf8" }).stdout.trim();
      assert.equal(result.status, 1);
      assert.equal(result.stdout, "");
      assert.equal(
        result.stderr,
        `loom needs Node.js 24 or newer (this is ${version}): install it, or run \`nvm use\` in the loom checkout (it has .nvmrc)\n`,
      );
    });

    it("npm start's entry app/start.js says the same, exit 1", () => {
      const result = spawnSync(oldNode ?? "node", ["app/start.js"], { cwd: REPO_ROOT, encoding: "utf8" });
      const version = spawnSync(oldNode ?? "node", ["--version"], { encoding: "utf8" }).stdout.trim();
      assert.equal(result.status, 1);
      assert.equal(
        result.stderr,
        `loom needs Node.js 24 or newer (this is ${version}): install it, or run \`nvm use\` in the loom checkout (it has .nvmrc)\n`,
      );
    });

    it("while the TypeScript entry itself would fail with ERR_UNKNOWN_FILE_EXTENSION (why loom.js exists)", () => {
      const result = spawnSync(oldNode ?? "node", ["bin/loom.ts", "--help"], {
        cwd: REPO_ROOT,
        encoding: "utf8",
      });
      assert.notEqual(result.status, 0);
      assert.match(result.stderr, /ERR_UNKNOWN_FILE_EXTENSION/);
    });
  },
);

describe(".nvmrc", () => {
  it("names Node.js 24", () => {
    assert.equal(readFileSync(join(REPO_ROOT, ".nvmrc"), "utf8"), "24\n");
  });
});
