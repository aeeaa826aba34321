import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { runStage } from "../../action/src/run-stage.ts";
import type { RunSessionOptions } from "../../action/src/session/run-session.ts";
import { StageResult } from "../../src/artifacts/stage-result.ts";
import { BundleManifest } from "../../src/artifacts/publish-result.ts";
import { deps, finishedSession, git, inputs, makeFixture, readJson } from "./run-stage-fixture.ts";

const STAGE = `
- id: build
  name: Build the greeter
  description: Write greet.txt
  acceptance:
    - "grep -q hello greet.txt"
  artifacts:
    - greet.txt
`;

test("a session that writes the file and passes acceptance is completed, committed by the runner and bundled", async (t) => {
  const f = await makeFixture(STAGE, t);
  const start = git(f.workspace, "rev-parse", "HEAD");
  let seen: RunSessionOptions | undefined;
  const { result, resultFile } = await runStage(
    inputs(),
    deps(f, async (o) => {
      seen = o;
      await writeFile(path.join(o.cwd, "greet.txt"), "hello world\n");
      return finishedSession(o);
    }),
  );
  assert.equal(result.outcome, "completed", result.reason);
  assert.match(result.reason, /1 commit; all 2 checks pass/);
  assert.deepEqual(
    result.checks.map((c) => [c.kind, c.passed]),
    [
      ["acceptance", true],
      ["artifact", true],
    ],
  );
  assert.equal(result.commits.length, 1);
  assert.equal(git(f.workspace, "log", "-1", "--format=%an"), "loom-runner");
  assert.equal(result.head_sha, git(f.workspace, "rev-parse", "HEAD"));
  assert.equal(result.key, "blob123:build:1");
  assert.equal(result.session_id, "s-1");
  assert.deepEqual(StageResult.parse(await readJson(resultFile)), result);

  // The signal reached the session, and it ran with the stage's settings and no secrets but the key.
  assert.ok(seen !== undefined);
  assert.match(seen.prompt, /## Assignment\n\nBuild the greeter: Write greet\.txt/);
  assert.equal(seen.contextBudgetPercent, 65);
  assert.ok(!seen.transcriptPath.startsWith(f.workspace), "loom's files stay out of the checkout");

  // Artifacts: result, transcript (redacted), bundle with manifest.
  assert.deepEqual([...f.uploads.keys()].sort(), ["loom-bundle", "loom-result", "loom-transcript"]);
  const transcript = await readFile(
    path.join(f.uploads.get("loom-transcript") ?? "", "transcript.jsonl"),
    "utf8",
  );
  assert.doesNotMatch(transcript, /sk-ant-test-secret/);
  const bundleDir = f.uploads.get("loom-bundle") ?? "";
  const manifest = BundleManifest.parse(await readJson(path.join(bundleDir, "loom-bundle.json")));
  assert.equal(manifest.base_sha, start);
  assert.equal(manifest.head_sha, result.head_sha);
  assert.equal(manifest.bundle, "loom.bundle");
  const clone = path.join(f.root, "clone");
  git(f.root, "clone", "-q", "--no-checkout", f.workspace, clone);
  git(
    clone,
    "fetch",
    "-q",
    path.join(bundleDir, "loom.bundle"),
    "refs/heads/loom/PLAN-demo/build:refs/heads/fetched",
  );
  assert.equal(git(clone, "show", "fetched:greet.txt"), "hello world");

  assert.match(f.summaries[0] ?? "", /loom: `build` completed/);
});

test("failing acceptance is completed-with-failures with the failing command's output", async (t) => {
  const f = await makeFixture(STAGE, t);
  const { result } = await runStage(
    inputs(),
    deps(f, async (o) => {
      await writeFile(path.join(o.cwd, "greet.txt"), "goodbye\n");
      return finishedSession(o);
    }),
  );
  assert.equal(result.outcome, "completed-with-failures");
  const failing = result.checks.find((c) => !c.passed);
  assert.equal(failing?.command, "grep -q hello greet.txt");
  assert.equal(failing?.exit_code, 1);
  assert.match(failing?.output_tail ?? "", /exit code 1, expected 0/);
  assert.match(f.summaries[0] ?? "", /❌ grep -q hello greet\.txt/);
});

test("a session that did nothing is not green even when the stage declares no checks", async (t) => {
  const f = await makeFixture("- id: build\n  name: Build\n", t);
  const { result } = await runStage(
    inputs(),
    deps(f, (o) => finishedSession(o)),
  );
  assert.equal(result.outcome, "completed-with-failures");
  assert.match(result.reason, /no commits and the stage declares no checks/);
  const manifest = BundleManifest.parse(
    await readJson(path.join(f.uploads.get("loom-bundle") ?? "", "loom-bundle.json")),
  );
  assert.equal(manifest.bundle, null);
  assert.deepEqual(await readdir(f.uploads.get("loom-bundle") ?? ""), ["loom-bundle.json"]);
});

test("a hung session keeps its outcome and handoff, its work is still committed and bundled, checks are not run", async (t) => {
  const f = await makeFixture(STAGE, t);
  const { result } = await runStage(
    inputs(),
    deps(f, async (o) => {
      await writeFile(path.join(o.cwd, "half.txt"), "half\n");
      const base = await finishedSession(o);
      return {
        ...base,
        status: "hung",
        reason: "no output for 900 s: the session was stopped",
        handoff: {
          stage_id: "build",
          attempt: 1,
          session_id: "s-1",
          reason: "hung",
          created_at: "2026-11-21T10:00:00Z",
          context_percent: 12,
          summary: "wrote half.txt",
          remaining: [],
          files_touched: ["half.txt"],
          recent_activity: ["Write half.txt"],
          hook_notes: null,
          last_heartbeat: null,
        },
      };
    }),
  );
  assert.equal(result.outcome, "hung");
  assert.deepEqual(result.checks, []);
  assert.equal(result.commits.length, 1);
  assert.match(result.handoff ?? "", /# Handoff: stage `build`, attempt 1[\s\S]*wrote half\.txt/);
  assert.ok(existsSync(path.join(f.uploads.get("loom-bundle") ?? "", "loom.bundle")));
});

test("a recovery session gets the previous run's handoff and heartbeat in its signal", async (t) => {
  const f = await makeFixture(STAGE, t);
  let prompt = "";
  let asked: number | undefined;
  await runStage(
    inputs({ kind: "recovery", attempt: "2", previous_run_id: "77" }),
    deps(
      f,
      async (o) => {
        prompt = o.prompt;
        return finishedSession(o);
      },
      {
        loadPrevious: (runId) => {
          asked = runId;
          return Promise.resolve({
            notes: [],
            handoff: "# Handoff\n\nhalf done",
            lastHeartbeat: {
              stage_id: "build",
              session_id: "s-0",
              attempt: 1,
              timestamp: "2026-11-21T10:00:00Z",
              context_percent: 30,
              last_tool: "Write",
              activity: "Write greet.txt",
              turns: 4,
              cost_usd: 0.1,
            },
          });
        },
      },
    ),
  );
  assert.equal(asked, 77);
  assert.match(prompt, /<handoff>\n# Handoff\n\nhalf done\n<\/handoff>/);
  assert.match(prompt, /last tool Write, activity Write greet\.txt/);
});

test("an invalid plan or unknown stage ends as crashed with a reason, without running a session", async (t) => {
  const f = await makeFixture("- id: build\n  name: Build\n  dependencies: [nope]\n", t);
  let ran = false;
  const { result } = await runStage(
    inputs(),
    deps(f, async (o) => {
      ran = true;
      return finishedSession(o);
    }),
  );
  assert.equal(ran, false);
  assert.equal(result.outcome, "crashed");
  assert.match(result.reason, /is invalid: line \d+/);
  const g = await makeFixture(STAGE, t);
  const other = await runStage(
    inputs({ stage_id: "missing" }),
    deps(g, (o) => finishedSession(o)),
  );
  assert.match(other.result.reason, /has no stage missing/);
});

test("a session runner that throws is recorded as crashed, never as completed", async (t) => {
  const f = await makeFixture(STAGE, t);
  const { result } = await runStage(
    inputs(),
    deps(f, () => Promise.reject(new Error("spawn claude ENOENT"))),
  );
  assert.equal(result.outcome, "crashed");
  assert.match(result.reason, /the session runner failed: Error: spawn claude ENOENT/);
});

test("a merge session starts the merge, names the conflicting files, and an unfinished merge is a failure", async (t) => {
  const f = await makeFixture(STAGE, t);
  // origin: a bare repo whose plan branch changed the same line.
  const origin = path.join(f.root, "origin.git");
  git(f.root, "init", "-q", "--bare", origin);
  git(f.workspace, "remote", "add", "origin", origin);
  await writeFile(path.join(f.workspace, "shared.txt"), "base\n");
  git(f.workspace, "add", "shared.txt");
  git(f.workspace, "commit", "-q", "-m", "shared");
  git(f.workspace, "push", "-q", "origin", "HEAD:refs/heads/feature");
  await writeFile(path.join(f.workspace, "shared.txt"), "stage side\n");
  git(f.workspace, "commit", "-q", "-am", "stage edit");
  const other = path.join(f.root, "other");
  git(f.root, "clone", "-q", "-b", "feature", origin, other);
  await writeFile(path.join(other, "shared.txt"), "plan side\n");
  git(other, "commit", "-q", "-am", "plan edit");
  git(other, "push", "-q", "origin", "feature");

  let prompt = "";
  const { result } = await runStage(
    inputs({ kind: "merge", base: "feature" }),
    deps(f, async (o) => {
      prompt = o.prompt;
      return finishedSession(o);
    }),
  );
  assert.match(prompt, /## Conflicting Files\n\n- `shared\.txt`/);
  assert.equal(result.outcome, "completed-with-failures");
  assert.match(result.reason, /left a merge unfinished/);
});

test("heartbeats are uploaded as numbered artifacts, at most one per 30 s", async (t) => {
  const f = await makeFixture(STAGE, t);
  let clock = 1_000_000;
  const beat = {
    stage_id: "build",
    session_id: "s-1",
    attempt: 1,
    timestamp: "2026-11-21T10:00:00Z",
    context_percent: 5,
    last_tool: "Write",
    activity: "Write greet.txt",
    turns: 1,
    cost_usd: 0,
  };
  await runStage(
    inputs(),
    deps(
      f,
      async (o) => {
        for (const at of [0, 10_000, 40_000, 50_000, 75_000]) {
          clock = 1_000_000 + at;
          await o.publishHeartbeat?.({ ...beat, turns: at });
        }
        return finishedSession(o);
      },
      { now: () => clock },
    ),
  );
  const names = [...f.uploads.keys()].filter((n) => n.startsWith("loom-heartbeat-")).sort();
  assert.deepEqual(names, ["loom-heartbeat-1", "loom-heartbeat-2", "loom-heartbeat-3"]);
  const third = await readJson(path.join(f.uploads.get("loom-heartbeat-3") ?? "", "heartbeat.json"));
  assert.equal((third as { turns: number }).turns, 75_000);
});
