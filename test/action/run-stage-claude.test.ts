import { sandboxDeps } from "./sandbox-deps.ts";
import { test } from "node:test";
import assert from "node:assert/strict";
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { runStage } from "../../action/src/run-stage.ts";
import { RunStageInputs } from "../../action/src/run-stage-inputs.ts";
import { BundleManifest } from "../../src/artifacts/publish-result.ts";
import { Heartbeat } from "../../src/artifacts/heartbeat.ts";
import { startFakeModelServer, type FakeTurn } from "../support/fake-model-server.ts";
import { CLAUDE_PATH, createSandbox, type Sandbox } from "../support/fake-model-sandbox.ts";
import { git, GREETER_STAGE, PLAN_PATH, planText, readJson } from "./run-stage-fixture.ts";

const STAGE = GREETER_STAGE;

type E2E = { box: Sandbox; uploads: string; heartbeats: Heartbeat[] };

async function runWithModel(script: (box: Sandbox) => FakeTurn[]) {
  const box = createSandbox();
  await mkdir(path.join(box.repo, "doc/plans"), { recursive: true });
  await writeFile(path.join(box.repo, PLAN_PATH), planText(STAGE));
  box.git("add", PLAN_PATH);
  box.git("commit", "-q", "-m", "plan");
  const server = await startFakeModelServer({ turns: script(box) });
  const uploads = await mkdtemp(path.join(tmpdir(), "loom-uploads-"));
  const e2e: E2E = { box, uploads, heartbeats: [] };
  const deps = sandboxDeps(box, server.url, {
    uploadArtifact: async (name, files, rootDirectory) => {
      for (const file of files) await cp(file, path.join(uploads, name, path.relative(rootDirectory, file)));
      if (name.startsWith("loom-heartbeat-"))
        e2e.heartbeats.push(Heartbeat.parse(await readJson(files[0] ?? "")));
    },
    heartbeatGapMs: 0,
  });
  const inputs = RunStageInputs.parse({
    plan_path: PLAN_PATH,
    plan_id: "PLAN-demo",
    stage_id: "build",
    attempt: "1",
    branch: "main",
    silence_timeout_minutes: "1",
    check_timeout_minutes: "1",
    allowed_tools: "Read,Write,Edit,Bash(git *)",
    claude_path: CLAUDE_PATH,
  });
  try {
    const run = await runStage(inputs, deps);
    return { ...e2e, ...run };
  } finally {
    await server.close();
  }
}

test(
  "with the real Claude Code: the model writes the file, acceptance passes, the file is in the bundle",
  { timeout: 110_000 },
  async (t) => {
    const run = await runWithModel((box) => [
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
          { type: "tool_use", name: "Bash", input: { command: "git add greet.txt", description: "stage" } },
        ],
      },
      {
        blocks: [
          {
            type: "tool_use",
            name: "Bash",
            input: { command: "git commit -q -m 'Add greeting'", description: "commit" },
          },
        ],
      },
      { blocks: [{ type: "text", text: "Done." }] },
    ]);
    t.after(async () => {
      run.box.cleanup();
      await rm(run.uploads, { recursive: true, force: true });
    });
    const { result } = run;
    assert.equal(result.outcome, "completed", result.reason);
    assert.deepEqual(
      result.commits.map((c) => c.subject),
      ["Add greeting"],
    );
    assert.deepEqual(
      result.checks.map((c) => [c.name, c.passed]),
      [["grep hello greet.txt", true]],
    );
    assert.ok(result.turns >= 3);
    assert.ok(
      run.heartbeats.some((h) => h.last_tool === "Bash"),
      "heartbeats show the last tool",
    );

    // The bundle, fetched into a fresh clone of the start, holds the file.
    const bundleDir = path.join(run.uploads, "loom-bundle");
    const manifest = BundleManifest.parse(await readJson(path.join(bundleDir, "loom-bundle.json")));
    const clone = path.join(run.box.dir, "clone");
    git(run.box.dir, "clone", "-q", "--no-checkout", run.box.repo, clone);
    git(clone, "fetch", "-q", path.join(bundleDir, "loom.bundle"), "refs/heads/main:refs/heads/fetched");
    assert.equal(git(clone, "rev-parse", "fetched"), manifest.head_sha);
    assert.equal(git(clone, "show", "fetched:greet.txt"), "hello");
  },
);

test(
  "with the real Claude Code: failing acceptance is completed-with-failures with the command's output",
  { timeout: 110_000 },
  async (t) => {
    const run = await runWithModel((box) => [
      {
        blocks: [
          {
            type: "tool_use",
            name: "Write",
            input: { file_path: path.join(box.repo, "greet.txt"), content: "goodbye\n" },
          },
        ],
      },
      { blocks: [{ type: "text", text: "Done." }] },
    ]);
    t.after(async () => {
      run.box.cleanup();
      await rm(run.uploads, { recursive: true, force: true });
    });
    const { result } = run;
    assert.equal(result.outcome, "completed-with-failures", result.reason);
    // The agent left greet.txt uncommitted: the runner committed it.
    assert.equal(result.commits.length, 1);
    assert.equal(git(run.box.repo, "log", "-1", "--format=%an"), "loom-runner");
    // Only the agent's work: nothing of Claude Code's or loom's own files.
    assert.equal(git(run.box.repo, "show", "--name-only", "--format=", "HEAD"), "greet.txt");
    const [check] = result.checks;
    assert.equal(check?.passed, false);
    assert.equal(check?.exit_code, 1);
    assert.match(check?.output_tail ?? "", /exit code 1, expected 0/);
  },
);

test(
  "with the real Claude Code: the session writes its learnings file outside the checkout; loom-result carries the accepted learning and the rejected one with its reason",
  { timeout: 110_000 },
  async (t) => {
    const learning = {
      category: "convention",
      summary: "Greeting files end with a newline",
      detail:
        "The acceptance check greps greet.txt; tools that read lines may skip a last line without a newline, so write hello followed by a newline.",
      tags: ["greeter"],
      scope: "greet.txt",
      criteria_met: ["verified", "specific"],
    };
    // A token-shaped value built at run time: the write gate must refuse it.
    const token = `ghp_${"Q1w2E3r4T5".repeat(4).slice(0, 36)}`;
    const leaky = {
      ...learning,
      summary: "The deploy key for the greeter host",
      detail: `Deploy with ${token} as the password, it never expires.`,
    };
    const run = await runWithModel((box) => [
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
            name: "Write",
            input: {
              // runStage's tempDir is <box>/tmp: the learnings file is tmp/learnings/learnings.jsonl.
              file_path: path.join(box.dir, "tmp", "learnings", "learnings.jsonl"),
              content: `${JSON.stringify(learning)}\n${JSON.stringify(leaky)}\n`,
            },
          },
        ],
      },
      {
        blocks: [{ type: "text", text: "Done. [DEVIATION Rule 1: recorded a learning nobody asked for]" }],
      },
    ]);
    t.after(async () => {
      run.box.cleanup();
      await rm(run.uploads, { recursive: true, force: true });
    });
    const { result } = run;
    assert.equal(result.outcome, "completed", result.reason);
    assert.deepEqual(result.permission_denials, [], "the session may write its learnings file");
    assert.deepEqual(result.deviations, ["[DEVIATION Rule 1: recorded a learning nobody asked for]"]);
    assert.deepEqual(
      result.learnings?.accepted.map((l) => [l.category, l.summary, l.stage_id]),
      [["convention", learning.summary, "build"]],
    );
    assert.equal(result.learnings?.rejected.length, 1);
    assert.match(result.learnings?.rejected[0]?.reason ?? "", /write gate.*token/);
    const uploaded = await readFile(path.join(run.uploads, "loom-result", "loom-result.json"), "utf8");
    assert.ok(!uploaded.includes(token), "the secret never leaves the job");
    // The learnings file is not part of the work: only greet.txt was committed.
    assert.equal(git(run.box.repo, "show", "--name-only", "--format=", "HEAD"), "greet.txt");
  },
);
