import assert from "node:assert/strict";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createSqliteStore } from "../../app/store/sqlite-store.ts";
import { INPUTS_START } from "../../scripts/inputs-table.ts";
import { PLAN_FIELDS_START } from "../../src/plan/render-plan-fields.ts";
import { REPO_ROOT, runShell, type CliRun } from "../cli/run-loom.ts";
import { freshCheckout } from "../e2e/npm-start.ts";
import { extractDocCommands, type DocCommand } from "./extract-doc-commands.ts";

/**
 * Every shell command README.md and docs/*.md show (see extract-doc-commands.ts for what counts)
 * is accounted for in exactly one of three tables:
 *
 * - `RUN_HERE`: this file runs it as written, through the shell, and checks what it prints (and,
 *   where a `console` block shows its output, that it prints exactly that);
 * - `RUN_ELSEWHERE`: another test (or CI's workflow) runs it; `runs` is the code in that file that
 *   runs it, checked to be there;
 * - `NOT_RUN`: no test runs it, with the reason.
 */

/** Checks what a command printed; `cwd` is where it ran. */
type Check = (run: CliRun, cwd: string) => void;
type Here = { check: Check; where?: "copy"; prepare?: (dir: string) => Promise<void> };

const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string })
  .version;
const EXAMPLE_SUMMARY =
  'examples/PLAN-example.md: valid plan "Add a cache": 3 stages on 3 levels, 0 warnings\n';

const RUN_HERE: Record<string, Here> = {
  "node bin/loom.js validate examples/PLAN-example.md": {
    check: (r) => assert.equal(r.stdout, EXAMPLE_SUMMARY, "the example plan validates with no warning"),
  },
  "node bin/loom.js validate examples": {
    check: (r) => assert.equal(r.stdout, EXAMPLE_SUMMARY, "the one plan under examples/, no warning"),
  },
  "node bin/loom.js validate examples/PLAN-example.md --json": {
    check: (r) => {
      const report = JSON.parse(r.stdout) as { ok: boolean; warnings: unknown[]; stages: { id: string }[] };
      assert.equal(report.ok, true);
      assert.deepEqual(report.warnings, []);
      assert.deepEqual(
        report.stages.map((s) => s.id),
        ["cache-core", "cache-wiring", "integration-verify"],
      );
    },
  },
  "node bin/loom.js validate examples --format github": {
    check: (r) => assert.equal(r.stdout, EXAMPLE_SUMMARY, "no annotation: nothing to warn about"),
  },
  "node bin/loom.js graph examples/PLAN-example.md": {
    check: (r) => assert.match(r.stdout, /^graph TD\n(.*\n)* {2}s0 --> s1\n {2}s1 --> s2\n$/),
  },
  "npx loom graph examples/PLAN-example.md": {
    check: (r) => assert.match(r.stdout, /^graph TD\n/),
  },
  "node bin/loom.js prompt examples/PLAN-example.md cache-core": {
    check: (r) => {
      assert.ok(r.stdout.includes("Add src/cache/ with createCache(ttlSeconds)"), "the stage's description");
      assert.ok(r.stdout.includes("npm test -- cache"), "its acceptance");
    },
  },
  "node bin/loom.js help validate": {
    check: (r) => assert.match(r.stdout, /^usage: loom validate /),
  },
  "node bin/loom.js --version": {
    check: (r) => assert.equal(r.stdout, `loom ${VERSION}\n`),
  },
  "npx loom usage --repo owner/repo > loom-usage.jsonl": {
    where: "copy",
    prepare: async (dir) => {
      const store = createSqliteStore({ path: join(dir, "app-state.sqlite") });
      await store.migrate();
      await store.close();
      writeFileSync(join(dir, ".env"), `LOOM_SQLITE_PATH=${join(dir, "app-state.sqlite")}\n`);
    },
    check: (r, cwd) => {
      assert.equal(r.stdout, "", "the output goes to the file");
      assert.equal(
        readFileSync(join(cwd, "loom-usage.jsonl"), "utf8"),
        "",
        "no session in the App's store yet",
      );
    },
  },
  "node scripts/print-inputs-table.ts": {
    check: (r) => {
      assert.ok(r.stdout.startsWith(`${INPUTS_START}\n`), "the block with its markers");
      const page = readFileSync(join(REPO_ROOT, "docs/configuration.md"), "utf8");
      assert.ok(page.includes(r.stdout), "docs/configuration.md holds it as printed");
    },
  },
  "node scripts/print-plan-fields.ts": {
    check: (r) => {
      assert.ok(r.stdout.startsWith(`${PLAN_FIELDS_START}\n`), "the block with its markers");
      const page = readFileSync(join(REPO_ROOT, "docs/plan-format.md"), "utf8");
      assert.ok(page.includes(r.stdout), "docs/plan-format.md holds it as printed");
    },
  },
};

/** Run by another file: `runs` is the code there that runs the command. */
const RUN_ELSEWHERE: Record<string, { file: string; runs: string; script?: string }> = {
  "npm start": { file: "test/e2e/npm-start.ts", runs: 'spawn("npm", ["start"]' },
  "npm run demo": { file: "test/e2e/demo.test.ts", runs: 'spawn("npm", ["run", "--silent", "demo"]' },
  "npm run bench -- reads": {
    file: "test/tooling/bench-command.test.ts",
    runs: 'spawnSync("npm", ["run", "--silent", "bench", "--", "reads"]',
  },
  // The build script itself, into a temp folder (`npm run build` writes action/dist in place).
  "npm run build": {
    file: "test/action/dist-fresh.test.ts",
    runs: 'execFileSync(process.execPath, [path.join(root, "scripts/build-action.ts"), out]',
    script: "node scripts/build-action.ts",
  },
  "node app/main.ts": {
    file: "test/app/main-entry.test.ts",
    runs: 'spawn(process.execPath, ["app/main.ts"]',
  },
  ".ci/run": { file: ".github/workflows/ci.yml", runs: "run: .ci/run" },
};

const NOT_RUN: Record<string, string> = {
  "npm test": "the whole suite, this test among it (CI runs it through .ci/run)",
  "npm run test:only": "the suite without lint, typecheck and prettier: npm test's last step",
  "npm ci": "installs the locked dependencies from the registry; .ci/run runs it before every CI suite",
  "docker compose up -d":
    "no Docker engine where the tests run; test/deploy/ checks compose.yaml (with the real docker-compose config) and the Dockerfile",
  "docker compose exec app loom usage":
    "no Docker engine where the tests run; test/deploy/dockerfile.test.ts checks the image copies everything bin/loom.js imports and links it as loom",
  "npm run bench": "every benchmark, minutes of both cores: the lead runs it, BENCHMARKS.md records it",
  "npm run mutate": "mutation testing of every folder, hours of both cores: BENCHMARKS.md records it",
};

const PAGES = [
  "README.md",
  ...readdirSync(join(REPO_ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];
const SHOWN: DocCommand[] = PAGES.flatMap((page) =>
  extractDocCommands(readFileSync(join(REPO_ROOT, page), "utf8"), page),
);
const where = (c: DocCommand) => `${c.file}:${c.line}`;

describe("every command README.md and docs/ show is run by a test, or says why not", () => {
  it("finds the commands (the README's demo and validate, the plan format's CLI lines)", () => {
    const texts = new Set(SHOWN.map((c) => c.text));
    for (const text of ["npm run demo", "node bin/loom.js validate examples/PLAN-example.md", "npm start"])
      assert.ok(texts.has(text), text);
  });

  it("each command shown is in exactly one table", () => {
    const tables = [RUN_HERE, RUN_ELSEWHERE, NOT_RUN];
    const wrong = SHOWN.filter((c) => tables.filter((table) => Object.hasOwn(table, c.text)).length !== 1);
    assert.deepEqual(
      wrong.map((c) => `${where(c)} ${c.text}`),
      [],
      "add each to RUN_HERE (with a check), RUN_ELSEWHERE (with the test that runs it) or NOT_RUN (why)",
    );
  });

  it("every table entry is still shown somewhere (no stale entries)", () => {
    const texts = new Set(SHOWN.map((c) => c.text));
    const stale = [RUN_HERE, RUN_ELSEWHERE, NOT_RUN].flatMap(Object.keys).filter((text) => !texts.has(text));
    assert.deepEqual(stale, []);
  });

  for (const [command, { file, runs, script }] of Object.entries(RUN_ELSEWHERE)) {
    it(`${command}: ${file} runs it`, () => {
      assert.ok(readFileSync(join(REPO_ROOT, file), "utf8").includes(runs), `${file} holds ${runs}`);
      if (script === undefined) return;
      const name = /^npm run (\S+)$/.exec(command)?.[1] ?? "";
      const scripts = (
        JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { scripts: object }
      ).scripts as Record<string, string>;
      assert.equal(scripts[name], script, `package.json's ${name} script is what ${file} runs`);
    });
  }
});

const copies: string[] = [];
after(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

describe("the commands README.md and docs/ show work as written", () => {
  for (const [command, here] of Object.entries(RUN_HERE)) {
    it(command, async () => {
      let cwd = REPO_ROOT;
      if (here.where === "copy") {
        cwd = await freshCheckout();
        copies.push(cwd);
      }
      await here.prepare?.(cwd);
      const run = runShell(command, cwd);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stderr, "");
      here.check(run, cwd);
      for (const shown of SHOWN.filter((c) => c.text === command && c.output !== undefined))
        assert.equal(run.stdout, `${shown.output?.join("\n")}\n`, `the output ${where(shown)} shows`);
    });
  }
});
