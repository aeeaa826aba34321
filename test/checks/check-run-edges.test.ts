import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, mkdir, writeFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { CheckContext } from "../../action/src/checks/check-context.ts";
import { checkArtifact, checkWiring } from "../../action/src/checks/check-files.ts";
import { findStub } from "../../action/src/checks/find-stub.ts";
import { runCommand } from "../../action/src/checks/run-command.ts";

let dir = "";
const env = { PATH: process.env.PATH, HOME: process.env.HOME };

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "loom-check-edges-"));
  await mkdir(path.join(dir, "src"));
  await writeFile(path.join(dir, "src/a.ts"), "export const a = 1;\n");
});
after(() => rm(dir, { recursive: true, force: true }));

function context(): CheckContext {
  return { workspace: dir, env, knownSecrets: [], defaultTimeoutMs: 20_000, now: Date.now };
}

describe("edges of running checks", { concurrency: true }, () => {
  it("a finished command's run has exactly its exit code, output, timeout flag and duration", async () => {
    let t = 0;
    const run = await runCommand({
      command: "echo hi",
      cwd: dir,
      timeoutMs: 20_000,
      env,
      now: () => (t += 40),
    });
    assert.deepEqual(run, { exitCode: 0, stdout: "hi\n", stderr: "", timedOut: false, durationMs: 40 });
  });

  it("a leftover that ignores SIGTERM is killed too, so the check does not wait for it", async () => {
    const started = Date.now();
    const run = await runCommand({
      command: "(trap '' TERM; sleep 30) & echo started",
      cwd: dir,
      timeoutMs: 20_000,
      env,
    });
    assert.equal(run.stdout, "started\n");
    assert.ok(Date.now() - started < 10_000, "the leftover was killed");
  });

  it("without isolation in the sandbox, leftovers are still killed with the process group", async () => {
    const marker = path.join(dir, "none-leftover");
    const sandbox = {
      isolation: { kind: "none" as const, reason: "no sudo" },
      home: dir,
      privateDir: dir,
      owner: { uid: 0, gid: 0 },
    };
    const run = await runCommand({
      command: `(sleep 1; touch ${marker}) & echo started`,
      cwd: dir,
      timeoutMs: 20_000,
      env,
      runAs: { sandbox, checkout: dir },
    });
    assert.equal(run.stdout, "started\n");
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(existsSync(marker), false);
  });

  it("a glob that climbs out through a wildcard folder matches nothing outside the checkout", async () => {
    const result = await checkArtifact("*/../../../*", dir, context());
    assert.deepEqual(
      { kind: result.kind, passed: result.passed, output_tail: result.output_tail },
      { kind: "artifact", passed: false, output_tail: "no file matches" },
    );
  });

  it("failed artifact and wiring checks keep their kind", async () => {
    const show = (r: { kind: string; passed: boolean; output_tail: string }) => [
      r.kind,
      r.passed,
      r.output_tail,
    ];
    assert.deepEqual(show(await checkArtifact("../x.ts", dir, context())), [
      "artifact",
      false,
      "the path leaves the checkout",
    ]);
    assert.deepEqual(show(await checkArtifact("docs/*.md", dir, context())), [
      "artifact",
      false,
      "no file matches",
    ]);
    assert.deepEqual(show(await checkWiring({ source: "../x.ts", pattern: "x" }, dir, context())), [
      "wiring",
      false,
      "the source path leaves the checkout",
    ]);
    assert.deepEqual(
      show(await checkWiring({ source: "src/a.ts", pattern: "((" }, dir, context())).slice(0, 2),
      ["wiring", false],
    );
  });
});

describe("panic markers", () => {
  it("allow a space before the parenthesis", () => {
    assert.equal(findStub('panic! ("not implemented")'), 'contains panic!("not implemented") at line 1');
  });
});
