import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { statSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { StageResult } from "../../src/artifacts/stage-result.ts";
import { planText } from "../action/run-stage-fixture.ts";
import { startFakeModelServer, type FakeTurn } from "../support/fake-model-server.ts";
import { createSandbox, type Sandbox } from "../support/fake-model-sandbox.ts";
import { listMarkedSleepers, SLEEP_MARK } from "./session-isolation-driver.ts";

const DRIVER = path.join(import.meta.dirname, "session-isolation-driver.ts");
const PLAN_PATH = "doc/plans/PLAN-demo.md";
// The checks run repository code: as the session user they find no canary either.
const STAGE = `
- id: build
  name: Build the greeter
  description: Write greet.txt saying hello and commit it
  acceptance:
    - "grep hello greet.txt"
    - "! (cat /proc/[0-9]*/environ 2>/dev/null | tr '\\\\0' '\\\\n' | grep -q loom-canary)"
`;

/** What a prompt-injected session tries: read the action's tokens, leave processes behind. */
const PROBE = `#!/bin/bash
{ cat "/proc/$1/environ"; for f in /proc/[0-9]*/environ; do cat "$f"; done; } 2>/dev/null \\
  | tr '\\0' '\\n' | grep -o 'loom-canary-[a-z]*-[0-9a-f]*' | sort -u > leaked.txt
(setsid sleep ${SLEEP_MARK}001 > /dev/null 2>&1 &)
nohup sleep ${SLEEP_MARK}002 > /dev/null 2>&1 &
# Plants a program the action's own git would run (as the action's user) after the session.
git config core.fsmonitor "id -u >> $2; false"
echo probed
`;

type Driven = {
  result: StageResult;
  aliveAtUpload: number[];
  box: Sandbox;
  leaked: string[];
  /** The session user the driver ran, and what disposing of it could not do. */
  user: string | null;
  problems: string[];
  /** The uids the planted fsmonitor command ran as. */
  fsmonitorUids: string[];
};

async function runDriver(isolate: boolean): Promise<Driven> {
  const box = createSandbox();
  await mkdir(path.join(box.repo, "doc/plans"), { recursive: true });
  await writeFile(path.join(box.repo, PLAN_PATH), planText(STAGE));
  box.git("add", PLAN_PATH);
  box.git("commit", "-q", "-m", "plan");
  const turns: FakeTurn[] = [];
  const fsmonitorMarker = path.join(tmpdir(), `loom-fsmonitor-${randomBytes(6).toString("hex")}`);
  const server = await startFakeModelServer({ turns });
  const canaries = {
    ACTIONS_RUNTIME_TOKEN: `loom-canary-runtime-${randomBytes(8).toString("hex")}`,
    INPUT_GITHUB_TOKEN: `loom-canary-input-${randomBytes(8).toString("hex")}`,
  };
  try {
    const child = spawn(
      process.execPath,
      [DRIVER, box.dir, box.repo, ...(isolate ? [] : ["--no-isolation"])],
      { env: { ...box.claudeEnv(server.url), ...canaries }, stdio: ["ignore", "pipe", "pipe"] },
    );
    // The action's pid is known only now; the model asks for its first turn well after this.
    turns.push(
      {
        blocks: [
          {
            type: "tool_use",
            name: "Write",
            input: { file_path: path.join(box.repo, "probe.sh"), content: PROBE },
          },
        ],
      },
      {
        blocks: [
          {
            type: "tool_use",
            name: "Bash",
            input: { command: `bash probe.sh ${child.pid} ${fsmonitorMarker}` },
          },
        ],
      },
      {
        blocks: [
          {
            type: "tool_use",
            name: "Write",
            input: { file_path: path.join(box.repo, "greet.txt"), content: "hello\n" },
          },
        ],
      },
      {
        blocks: [
          {
            type: "tool_use",
            name: "Bash",
            input: { command: "git add greet.txt && git commit -q -m 'Add the greeter' && echo committed" },
          },
        ],
      },
      { blocks: [{ type: "text", text: "Done." }] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
    assert.equal(code, 0, `the driver failed:\n${stderr.slice(-4000)}`);
    const line = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as {
      result: unknown;
      aliveAtUpload: number[];
      user: string | null;
      problems: string[];
    };
    const leaked = box
      .git("show", "HEAD:leaked.txt")
      .split("\n")
      .filter((l) => l !== "");
    const fsmonitorUids = (await readFile(fsmonitorMarker, "utf8").catch(() => ""))
      .split("\n")
      .filter((l) => l !== "");
    return {
      result: StageResult.parse(line.result),
      aliveAtUpload: line.aliveAtUpload,
      user: line.user,
      problems: line.problems,
      box,
      leaked,
      fsmonitorUids,
    };
  } finally {
    await server.close();
    await rm(fsmonitorMarker, { force: true });
  }
}

function userExists(user: string): boolean {
  return spawnSync("id", ["-u", user]).status === 0;
}

function killSleepers(): void {
  for (const pid of listMarkedSleepers()) process.kill(pid, "SIGKILL");
}

const rootOnly = process.getuid?.() === 0 ? {} : { skip: "needs root (the action creates the session user)" };

test(
  "with the real Claude Code as a separate user: the session and the checks find no runner token, its background processes are gone before the result is uploaded, and its work is kept",
  { timeout: 150_000, ...rootOnly },
  async (t) => {
    const run = await runDriver(true);
    t.after(() => {
      killSleepers();
      run.box.cleanup();
    });
    const { result } = run;
    assert.equal(result.outcome, "completed", result.reason);
    assert.match(run.user ?? "", /^loom-[0-9a-f]{10}$/);
    assert.deepEqual(result.isolation, { mode: "user", user: run.user });
    assert.deepEqual(run.problems, []);
    assert.equal(userExists(run.user ?? ""), false, "the job's session user was removed");
    assert.deepEqual(run.leaked, [], "the session read a runner token");
    assert.deepEqual(
      result.checks.map((c) => [c.name, c.passed]),
      [
        ["grep hello greet.txt", true],
        [result.checks[1]?.name, true],
      ],
    );
    assert.deepEqual(run.aliveAtUpload, [], "a background process outlived the session");
    assert.deepEqual(listMarkedSleepers(), []);
    assert.ok(
      result.commits.some((c) => c.subject === "Add the greeter"),
      "the session's own commit",
    );
    assert.ok(result.commits.some((c) => c.subject.startsWith("loom: work left uncommitted")));
    // The checkout is the action's again, its git configuration the one it had.
    assert.equal(statSync(path.join(run.box.repo, "greet.txt")).uid, process.getuid?.());
    assert.equal(statSync(path.join(run.box.repo, ".git/config")).uid, process.getuid?.());
    assert.doesNotMatch(await readFile(path.join(run.box.repo, ".git/config"), "utf8"), /fsmonitor/);
    // What the session planted in .git/config ran only as the session user, never as the action's.
    assert.ok(run.fsmonitorUids.length > 0, "the planted fsmonitor never ran: the probe did not plant it");
    assert.ok(
      !run.fsmonitorUids.includes(String(process.getuid?.())),
      `ran as ${run.fsmonitorUids.join(",")}`,
    );
  },
);

test(
  "the same session without isolation (the action before this change) reads both runner tokens and leaves a process running",
  { timeout: 150_000, ...rootOnly },
  async (t) => {
    const run = await runDriver(false);
    t.after(() => {
      killSleepers();
      run.box.cleanup();
    });
    assert.equal(run.leaked.length, 2, `leaked: ${run.leaked.join(", ")}`);
    assert.ok(run.leaked.every((value) => value.startsWith("loom-canary-")));
    assert.equal(run.result.isolation, undefined);
    assert.equal(run.result.checks[1]?.passed, false, "the checks could read the runner's tokens too");
    assert.ok(run.aliveAtUpload.length > 0, "the setsid sleeper escaped the process group");
  },
);
