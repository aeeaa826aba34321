import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { CliCommand } from "../../bin/cli-command.ts";
import type { CliIo } from "../../bin/cli-io.ts";
import { COMMANDS, runCli } from "../../bin/run-cli.ts";
import type { ValidationReport } from "../../src/plan/validation-report.ts";
import { REPO_ROOT, runLoom } from "./run-loom.ts";

const FIXTURE = "test/fixtures/plans/PLAN-complex.md";
const work = mkdtempSync(join(tmpdir(), "loom-cli-"));
after(() => rmSync(work, { recursive: true, force: true }));

function writePlan(name: string, text: string): string {
  const path = join(work, name);
  writeFileSync(path, text);
  return path;
}

const cyclePlan = writePlan(
  "PLAN-cycle.md",
  [
    "# Plan: Cycle",
    "",
    "<!-- loom METADATA -->",
    "```yaml",
    "loom:",
    "  version: 1",
    "  stages:",
    "    - id: a",
    "      name: A",
    "      dependencies: [b]",
    "    - id: b",
    "      name: B",
    "      dependencies: [a]",
    "```",
    "<!-- END loom METADATA -->",
    "",
  ].join("\n"),
);

describe("loom validate", () => {
  it("prints compiler-style warnings and a summary for a valid plan, exit 0", () => {
    const { code, stdout } = runLoom(["validate", FIXTURE]);
    assert.equal(code, 0);
    const lines = stdout.trimEnd().split("\n");
    assert.match(
      lines.at(-1) ?? "",
      /^test\/fixtures\/plans\/PLAN-complex\.md: valid plan "Complex Dependency Test": 5 stages on 4 levels, \d+ warnings$/,
    );
    for (const line of lines.slice(0, -1))
      assert.match(line, /^test\/fixtures\/plans\/PLAN-complex\.md:\d+:\d+: warning: /);
    assert.ok(
      lines.includes(
        'test/fixtures/plans/PLAN-complex.md:19:11: warning: stage "models" has no acceptance criteria and no goal-backward checks (artifacts, wiring, wiring_tests, dead_code_check): nothing verifies its work',
      ),
    );
  });

  it("prints path:line:column: error: message for an invalid plan, exit 1", () => {
    const { code, stdout } = runLoom(["validate", cyclePlan]);
    assert.equal(code, 1);
    assert.ok(stdout.includes(`${cyclePlan}:10:22: error: dependency cycle: a → b → a\n`), stdout);
    assert.match(stdout, /: invalid plan: 1 error, \d+ warnings\n$/);
  });

  it("--json prints exactly one JSON object with the documented fields", () => {
    const { code, stdout } = runLoom(["validate", FIXTURE, "--json"]);
    assert.equal(code, 0);
    const report = JSON.parse(stdout) as ValidationReport;
    assert.deepEqual(Object.keys(report), ["ok", "plan", "stages", "errors", "warnings"]);
    assert.deepEqual(report.plan, { id: "PLAN-complex", name: "Complex Dependency Test" });
    assert.deepEqual(report.stages[3], {
      id: "api",
      dependencies: ["models", "database"],
      level: 2,
      stage_type: "standard",
    });
    for (const warning of report.warnings) {
      assert.deepEqual(
        Object.keys(warning).filter((k) => k !== "stage"),
        ["message", "line", "column"],
      );
    }
  });

  it("--json on an invalid plan still prints one object, exit 1", () => {
    const { code, stdout } = runLoom(["validate", "--json", cyclePlan]);
    assert.equal(code, 1);
    const report = JSON.parse(stdout) as ValidationReport;
    assert.equal(report.ok, false);
    assert.deepEqual(report.errors, [{ message: "dependency cycle: a → b → a", line: 10, column: 22 }]);
  });
});

describe("loom graph", () => {
  it("prints the DAG as mermaid, exit 0", () => {
    const { code, stdout } = runLoom(["graph", FIXTURE]);
    assert.equal(code, 0);
    assert.match(stdout, /^graph TD\n/);
    assert.equal(stdout.match(/ --> /g)?.length, 5, "one edge per dependency");
    assert.ok(stdout.includes('["models"]'));
  });

  it("prints the errors instead for an invalid plan, exit 1", () => {
    const { code, stdout, stderr } = runLoom(["graph", cyclePlan]);
    assert.equal(code, 1);
    assert.equal(stdout, "");
    assert.ok(stderr.includes("error: dependency cycle: a → b → a"));
  });
});

describe("bad usage exits 2 with a usage message on stderr", () => {
  const cases: [string, string[], RegExp][] = [
    ["no command", [], /missing command\nusage:/],
    ["an unknown command", ["frobnicate"], /unknown command "frobnicate"\nusage:/],
    [
      "validate without a file",
      ["validate"],
      /missing the plan file or directory argument\nusage: loom validate <plan\.md\|dir>\.\.\. \[--json \| --format text\|json\|github\]/,
    ],
    ["graph with two files", ["graph", "a.md", "b.md"], /unexpected argument "b\.md"/],
    ["an unknown flag", ["validate", FIXTURE, "--jsno"], /Unknown option '--jsno'/],
    ["graph with --json", ["graph", FIXTURE, "--json"], /Unknown option '--json'/],
    [
      "an unknown format",
      ["validate", FIXTURE, "--format", "xml"],
      /--format must be one of text, json, github, got "xml"/,
    ],
    [
      "--json with another format",
      ["validate", FIXTURE, "--json", "--format", "github"],
      /--json and --format github contradict each other/,
    ],
    [
      "a file that does not exist",
      ["validate", "no/such/PLAN-x.md"],
      /^loom validate: cannot read no\/such\/PLAN-x\.md: no such file or directory\n$/,
    ],
    ["help for an unknown command", ["help", "frobnicate"], /loom help: unknown command "frobnicate"/],
  ];
  for (const [name, args, pattern] of cases) {
    it(name, () => {
      const { code, stdout, stderr } = runLoom(args);
      assert.equal(code, 2);
      assert.equal(stdout, "");
      assert.match(stderr, pattern);
    });
  }

  it("--help prints the usage on stdout, exit 0", () => {
    const { code, stdout } = runLoom(["--help"]);
    assert.equal(code, 0);
    assert.match(stdout, /loom validate <plan\.md\|dir>\.\.\. \[--json \| --format text\|json\|github\]/);
    assert.match(stdout, /loom graph <plan\.md>/);
    assert.match(stdout, /loom help <command>/);
  });
});

describe("help and version", () => {
  const validateHelp =
    /^usage: loom validate <plan\.md\|dir>\.\.\. .*\n\n.*\n\n[^]*--format github[^]*exit status: 0 every plan is valid, 1 a plan is invalid, 2 /;
  const forms: [string, string[], RegExp][] = [
    ["loom validate --help", ["validate", "--help"], validateHelp],
    ["loom validate -h after a path", ["validate", FIXTURE, "-h"], validateHelp],
    ["loom help validate", ["help", "validate"], validateHelp],
    ["loom graph --help", ["graph", "--help"], /^usage: loom graph <plan\.md>\n[^]*mermaid/],
    [
      "loom help prompt",
      ["help", "prompt"],
      /^usage: loom prompt <plan\.md> <stage>[^]*--kind stage\|recovery\|merge/,
    ],
  ];
  for (const [name, args, pattern] of forms) {
    it(`${name} prints that command's help on stdout, exit 0`, () => {
      const { code, stdout, stderr } = runLoom(args);
      assert.equal(code, 0, stderr);
      assert.match(stdout, pattern);
    });
  }

  it("a path after -- may be called -h", () => {
    const { code, stderr } = runLoom(["validate", "--", "-h"]);
    assert.equal(code, 2);
    assert.match(stderr, /cannot read -h: no such file or directory/);
  });

  it("--version prints package.json's version", () => {
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
      version: string;
    };
    for (const flag of ["--version", "-v"]) {
      const { code, stdout } = runLoom([flag]);
      assert.equal(code, 0);
      assert.equal(stdout, `loom ${version}\n`);
    }
  });
});

describe("the CLI entry", () => {
  it("is an executable plain JavaScript node script, named by package.json's bin", () => {
    const path = join(REPO_ROOT, "bin/loom.js");
    assert.equal(readFileSync(path, "utf8").split("\n")[0], "#!/usr/bin/env node");
    assert.ok((statSync(path).mode & 0o111) !== 0, "bin/loom.js is executable");
    const { bin } = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { bin: unknown };
    assert.deepEqual(bin, { loom: "./bin/loom.js" });
  });

  it("dispatches to any command in its table, so a new subcommand is one entry", async () => {
    const out: string[] = [];
    const io: CliIo = {
      readText: () => Promise.resolve({ ok: false, reason: "unused" }),
      statPath: () => Promise.resolve({ kind: "missing", reason: "unused" }),
      listPlanFiles: () => Promise.resolve({ ok: true, files: [] }),
      stdout: (t) => void out.push(t),
      stderr: (t) => void out.push(t),
    };
    const hello: CliCommand = {
      usage: "<name>",
      summary: "greet",
      help: "Says hello.",
      run: (args, cliIo) => {
        cliIo.stdout(`hello ${args.join(" ")}\n`);
        return Promise.resolve(0);
      },
    };
    const code = await runCli(["hello", "plan.md", "stage-1"], io, { ...COMMANDS, hello });
    assert.equal(code, 0);
    assert.deepEqual(out, ["hello plan.md stage-1\n"]);
    await runCli(["--help"], io, { ...COMMANDS, hello });
    assert.match(out.at(-1) ?? "", /loom hello <name> +greet/);
    await runCli(["hello", "--help"], io, { ...COMMANDS, hello });
    assert.equal(out.at(-1), "usage: loom hello <name>\n\ngreet.\n\nSays hello.\n");
  });
});
