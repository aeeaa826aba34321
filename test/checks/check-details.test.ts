import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, mkdir, writeFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { CheckContext } from "../../action/src/checks/check-context.ts";
import { checkArtifact, checkWiring } from "../../action/src/checks/check-files.ts";
import { findStub } from "../../action/src/checks/find-stub.ts";
import { runCommandCheck } from "../../action/src/checks/run-command-check.ts";
import { runDeadCodeCheck } from "../../action/src/checks/run-dead-code-check.ts";
import { tailOutput } from "../../action/src/checks/tail-output.ts";

const SECRET = "hunter2-secret-value";
let dir = "";

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "loom-check-details-"));
  const files: Record<string, string> = {
    "src/a.ts": "export const a = 1;\n",
    "src/b.ts": "export const b = 2;\n",
    "stubs/b.ts": "// TODO\n",
    "stubs/a.ts": "\ntodo!()\n",
    "stubs/c.ts": "// FIXME\n",
    "stubs/b/deep.ts": "  \n",
    [`src/${SECRET}.ts`]: "export {};\n",
  };
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), text);
  }
});
after(() => rm(dir, { recursive: true, force: true }));

function context(): CheckContext {
  const env = { PATH: process.env.PATH, HOME: process.env.HOME };
  return { workspace: dir, env, knownSecrets: [SECRET], defaultTimeoutMs: 20_000, now: Date.now };
}

describe("check details a person reads", { concurrency: true }, () => {
  it("artifact globs with ? and braces match files", async () => {
    assert.equal(
      (await checkArtifact("src/?.ts", dir, context())).output_tail,
      "2 file(s) exist with content",
    );
    assert.equal(
      (await checkArtifact("src/{a,b}.ts", dir, context())).output_tail,
      "2 file(s) exist with content",
    );
  });

  it("lists the stubs a glob matched in path order", async () => {
    const result = await checkArtifact("stubs/**/*.ts", dir, context());
    assert.equal(
      result.output_tail,
      "stubs/a.ts: contains todo!() at line 2\nstubs/b.ts: contains TODO at line 1\nstubs/b/deep.ts: the file is empty\nstubs/c.ts: contains FIXME at line 1",
    );
  });

  it("says why a path cannot be read", async () => {
    const result = await checkArtifact("src/a.ts/inner", dir, context());
    assert.equal(
      result.output_tail,
      `src/a.ts/inner ENOTDIR: not a directory, stat '${path.join(dir, "src/a.ts/inner")}'`,
    );
  });

  it("redacts secrets in artifact and wiring details", async () => {
    const artifact = await checkArtifact(`src/${SECRET}.md`, dir, context());
    assert.equal(artifact.output_tail, "src/[REDACTED].md does not exist");
    const wiring = await checkWiring({ source: "src/a.ts", pattern: SECRET }, dir, context());
    assert.equal(wiring.output_tail, "pattern /[REDACTED]/: no match in src/a.ts");
  });

  it("counts dead-code reports on stderr too", async () => {
    const result = await runDeadCodeCheck({ command: "echo 'warning: x is unused' >&2" }, dir, context());
    assert.equal(result.passed, false);
    assert.equal(
      result.output_tail,
      "1 dead-code report(s):\nwarning: x is unused\n--- stderr ---\nwarning: x is unused",
    );
  });

  it("records no location for files the output names that are not in the checkout", async () => {
    const result = await runCommandCheck(
      {
        kind: "acceptance",
        name: "tsc",
        command: "echo 'src/missing.ts(3,1): error' ; echo 'src(1,1): error' ; exit 1",
        cwd: dir,
        criteria: {},
      },
      context(),
    );
    assert.equal(result.passed, false);
    assert.equal(result.locations, undefined);
  });
});

describe("stub markers are whole words", () => {
  const cases: [string, string | null][] = [
    ["xunimplemented!()", null],
    ['xpanic!("not implemented")', null],
    ["raise NotImplementedErrors", null],
    ["myTODO and xFIXME", null],
    ["throw new Error( 'not implemented')", 'contains throw new Error("not implemented") at line 1'],
    ["unimplemented!  ()", "contains unimplemented!() at line 1"],
  ];
  for (const [text, expected] of cases) {
    it(`${text} → ${String(expected)}`, () => assert.equal(findStub(text), expected));
  }
});

describe("an output tail of exactly the limit", () => {
  it("is kept whole", () => {
    const stdout = "x".repeat(100 - "--- stdout ---\n".length);
    assert.equal(tailOutput({ stdout }, [], 100), `--- stdout ---\n${stdout}`);
  });
});

describe("output tails", () => {
  it("leave out a stderr of whitespace only", () => {
    assert.equal(tailOutput({ stderr: " \n\t", stdout: "x" }, []), "--- stdout ---\nx");
  });

  it("keep every failure line above the cut", () => {
    const text = tailOutput({ failures: ["first", "second"], stdout: "o".repeat(300) }, [], 100);
    assert.ok(text.startsWith("first\nsecond\n… (cut) …\n"), text);
    assert.equal(text.length, 100);
  });
});
