import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import { formatWorkflowCommand } from "../../src/plan/format-github-annotations.ts";
import type { ValidationReport } from "../../src/plan/validation-report.ts";
import { REPO_ROOT, runLoom } from "./run-loom.ts";

const work = mkdtempSync(join(tmpdir(), "loom-validate-many-"));
after(() => rmSync(work, { recursive: true, force: true }));

function plan(stages: string[]): string {
  return [
    "# Plan: P",
    "",
    "<!-- loom METADATA -->",
    "```yaml",
    "loom:",
    "  version: 1",
    "  stages:",
    ...stages,
  ]
    .concat(["```", "<!-- END loom METADATA -->", ""])
    .join("\n");
}
const validPlan = plan([
  "    - id: build",
  "      name: Build",
  "      description: Build the parser in src/parser and cover it with unit tests",
  '      acceptance: ["npm test"]',
  "    - id: integration-verify",
  "      name: Integration verify",
  "      description: Run the whole test suite over the merged work of every stage",
  "      dependencies: [build]",
  '      acceptance: ["npm test"]',
]);
/** `dependecies:` on line 13 column 7: misspelt, so an error, not a silently dropped key. */
const misspeltPlan = plan([
  "    - id: build",
  "      name: Build",
  '      acceptance: ["npm test"]',
  "    - id: verify",
  "      name: Verify, with 100% care",
  "      dependecies: [build]",
  '      acceptance: ["npm test"]',
]);

function write(relative: string, text: string): string {
  const path = join(work, relative);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

const tree = join(work, "repo");
write("repo/doc/plans/PLAN-a.md", validPlan);
write("repo/doc/plans/done/DONE-PLAN-b.md", validPlan);
write("repo/doc/plans/IN_PROGRESS-PLAN-c.md", misspeltPlan);
write("repo/doc/plans/notes.md", "# not a plan\n");
write("repo/doc/plans/PLAN-d.txt", "not a plan: wrong extension\n");
write("repo/node_modules/pkg/PLAN-vendored.md", "# a package's file, never searched\n");
write("repo/.git/PLAN-inside-git.md", "# git data, never searched\n");
symlinkSync(join(tree, "doc"), join(tree, "doc/plans/loop"));
mkdirSync(join(work, "empty/sub"), { recursive: true });
write("empty/sub/README.md", "# no plans here\n");

type Many = {
  ok: boolean;
  plans: (ValidationReport & { path: string })[];
  errors: { path: string; message: string }[];
};

describe("loom validate <directory>", () => {
  it("finds PLAN-*, IN_PROGRESS-PLAN-* and DONE-PLAN-* recursively, as the App discovers them", () => {
    const { code, stdout } = runLoom(["validate", tree, "--json"]);
    assert.equal(code, 1, "one plan is invalid");
    const doc = JSON.parse(stdout) as Many;
    assert.deepEqual(
      doc.plans.map((p) => [p.path.slice(tree.length + 1), p.ok]),
      [
        ["doc/plans/IN_PROGRESS-PLAN-c.md", false],
        ["doc/plans/PLAN-a.md", true],
        ["doc/plans/done/DONE-PLAN-b.md", true],
      ],
    );
    assert.equal(doc.ok, false);
    assert.deepEqual(doc.errors, []);
    assert.deepEqual(doc.plans[0]?.errors, [
      {
        message:
          'stage "verify": unknown key `dependecies` (did you mean `dependencies`?): as written it is not used; fix the spelling',
        line: 13,
        column: 7,
      },
    ]);
  });

  it("prints each plan's diagnostics, then a total; exit 0 when all are valid", () => {
    const { code, stdout } = runLoom([
      "validate",
      join(tree, "doc/plans/PLAN-a.md"),
      join(tree, "doc/plans/done"),
    ]);
    assert.equal(code, 0, stdout);
    const lines = stdout.trimEnd().split("\n");
    assert.match(lines[0] ?? "", /PLAN-a\.md: valid plan "P": 2 stages on 2 levels, 0 warnings$/);
    assert.match(lines[1] ?? "", /DONE-PLAN-b\.md: valid plan "P": 2 stages on 2 levels, 0 warnings$/);
    assert.equal(lines[2], "2 plans: 2 valid, 0 invalid");
  });

  it("a directory without plans is an error: on stderr, or in the JSON document; exit 2", () => {
    const empty = join(work, "empty");
    const text = runLoom(["validate", empty]);
    assert.equal(text.code, 2);
    assert.equal(text.stdout, "");
    assert.equal(
      text.stderr,
      `loom validate: no plan files under ${empty} (looked for PLAN-*.md, IN_PROGRESS-PLAN-*.md and DONE-PLAN-*.md)\n`,
    );
    const json = runLoom(["validate", empty, "--json"]);
    assert.equal(json.code, 2);
    assert.deepEqual(JSON.parse(json.stdout), {
      ok: false,
      plans: [],
      errors: [{ path: empty, message: text.stderr.slice("loom validate: ".length, -1) }],
    });
  });
});

describe("loom validate --json when a path cannot be read", () => {
  it("one missing file: its report, whose one error says so at 1:1; exit 2", () => {
    const missing = join(work, "PLAN-gone.md");
    const { code, stdout, stderr } = runLoom(["validate", missing, "--json"]);
    assert.equal(code, 2);
    assert.equal(stderr, "");
    assert.deepEqual(JSON.parse(stdout), {
      ok: false,
      plan: { id: "PLAN-gone", name: "PLAN-gone" },
      stages: [],
      errors: [{ message: `cannot read ${missing}: no such file or directory`, line: 1, column: 1 }],
      warnings: [],
    });
  });

  it("a missing file among others: listed under errors, the rest still checked; exit 2", () => {
    const missing = join(work, "PLAN-gone.md");
    const good = join(tree, "doc/plans/PLAN-a.md");
    const { code, stdout } = runLoom(["validate", "--json", good, missing]);
    assert.equal(code, 2);
    const doc = JSON.parse(stdout) as Many;
    assert.equal(doc.ok, false);
    assert.deepEqual(
      doc.plans.map((p) => [p.path, p.ok]),
      [[good, true]],
    );
    assert.deepEqual(doc.errors, [
      { path: missing, message: `cannot read ${missing}: no such file or directory` },
    ]);
  });
});

describe("loom validate --format github", () => {
  it("prints one annotation per diagnostic with file, line and col, then the summary", () => {
    const path = "doc/plans/IN_PROGRESS-PLAN-c.md";
    const result = spawnSync(
      process.execPath,
      [join(REPO_ROOT, "bin/loom.js"), "validate", "doc", "--format", "github"],
      {
        cwd: tree,
        encoding: "utf8",
      },
    );
    assert.equal(result.status, 1);
    const lines = result.stdout.trimEnd().split("\n");
    assert.ok(
      lines.includes(
        `::error title=loom%3A IN_PROGRESS-PLAN-c,file=${path},line=13,col=7::stage "verify": unknown key \`dependecies\` (did you mean \`dependencies\`?): as written it is not used; fix the spelling`,
      ),
      result.stdout,
    );
    assert.ok(lines.includes(`${path}: invalid plan: 1 error, 3 warnings`), result.stdout);
    assert.ok(lines.some((l) => l.startsWith("::warning title=loom%3A IN_PROGRESS-PLAN-c,file=")));
  });

  it("an unreadable path is an ::error without a file; exit 2", () => {
    const { code, stdout } = runLoom(["validate", "no/such/PLAN-x.md", "--format", "github"]);
    assert.equal(code, 2);
    assert.equal(stdout, "::error title=loom::cannot read no/such/PLAN-x.md: no such file or directory\n");
  });
});

describe("workflow commands are escaped as @actions/core escapes them", () => {
  const cases: [string, Record<string, string | number>, string][] = [
    ["plain", { title: "loom", file: "doc/PLAN-a.md", line: 3, col: 7 }, "stage a: bad"],
    ["% : , in properties", { title: "loom: 100%, sure", file: "a,b:c%.md", line: 1, col: 1 }, "x"],
    ["newlines and % in the message", { title: "t" }, "first\nsecond\r\nthird 50% :, done"],
  ];
  for (const [name, properties, message] of cases) {
    it(name, () => {
      const script = `import * as core from "@actions/core";
        const [p, m] = JSON.parse(process.argv[1]);
        core.error(m, { title: p.title, file: p.file, startLine: p.line, startColumn: p.col });`;
      const result = spawnSync(
        process.execPath,
        ["--input-type=module", "-e", script, JSON.stringify([properties, message])],
        { cwd: REPO_ROOT, encoding: "utf8", env: { ...process.env, GITHUB_ACTIONS: "" } },
      );
      assert.equal(result.status, 0, result.stderr);
      assert.equal(`${formatWorkflowCommand("error", properties, message)}\n`, result.stdout);
    });
  }
});
