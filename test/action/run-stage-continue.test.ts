import { test } from "node:test";
import assert from "node:assert/strict";
import { cp, mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { runStage } from "../../action/src/run-stage.ts";
import { RunStageInputs } from "../../action/src/run-stage-inputs.ts";
import type { ContinueRecordRead } from "../../action/src/github/read-continue-record.ts";
import type { ArtifactReader } from "../../action/src/upload/artifact-port.ts";
import { loadPreviousSession } from "../../action/src/upload/load-previous-session.ts";
import { startFakeModelServer, type FakeTurn, type RecordedRequest } from "../support/fake-model-server.ts";
import { createSandbox, type Sandbox } from "../support/fake-model-sandbox.ts";
import { stoppedOutcome } from "../../action/src/stage/stopped-outcome.ts";
import type { RunSessionOptions } from "../../action/src/session/run-session.ts";
import { makeProjectSlug } from "../../action/src/session/claude-project-dir.ts";
import {
  deps,
  finishedSession,
  git,
  GREETER_STAGE,
  inputs,
  makeFixture,
  PLAN_PATH,
  planText,
} from "./run-stage-fixture.ts";
import { sandboxDeps } from "./sandbox-deps.ts";

/** The job's model key in these tests (sandboxDeps' knownSecrets): it must never leave the job. */
const SECRET = "sk-ant-test-not-a-key";
const KEY = "abc-pr1-PLAN-demo:build:2:dispatch";
const INSTRUCTIONS = "also handle the empty case";

const done: FakeTurn = { blocks: [{ type: "text", text: "Done." }] };

/** Artifacts a run uploaded, by name, as files under `<dir>/<name>/`. */
function uploadsInto(dir: string) {
  return async (name: string, files: string[], rootDirectory: string) => {
    for (const file of files) {
      const target = path.join(dir, name, path.relative(rootDirectory, file));
      await mkdir(path.dirname(target), { recursive: true });
      await cp(file, target);
    }
  };
}

/** The artifacts of an earlier run as the job's artifact reader lists and downloads them. */
function readerOf(dir: string): ArtifactReader {
  return {
    list: async () =>
      (await readdir(dir)).map((name, index) => ({ id: index + 1, name, createdAt: 1000 - index })),
    download: async (_source, id, directory) => {
      const name = (await readdir(dir))[id - 1] ?? "";
      await cp(path.join(dir, name), directory, { recursive: true });
    },
  };
}

type Attempt = {
  box: Sandbox;
  workspace: string;
  home: string;
  uploads: string;
  turns: FakeTurn[];
  kind: "stage" | "continue";
  attempt: number;
  record?: ContinueRecordRead;
  previous?: string;
};

/** One run of the stage with the real Claude Code against a scripted model; returns the result and the model's requests. */
async function runAttempt(a: Attempt) {
  const server = await startFakeModelServer({ turns: a.turns });
  const env = {
    ...a.box.claudeEnv(server.url),
    HOME: a.home,
    CLAUDE_CONFIG_DIR: path.join(a.home, ".claude"),
  };
  const deps = sandboxDeps(a.box, server.url, {
    workspace: a.workspace,
    tempDir: path.join(a.home, "tmp"),
    sessionEnv: env,
    uploadArtifact: uploadsInto(a.uploads),
    ...(a.record === undefined
      ? {}
      : { readContinueRecord: () => Promise.resolve(a.record as ContinueRecordRead) }),
    ...(a.previous === undefined
      ? {}
      : {
          loadPrevious: (runId: number, options?: { withSessionState?: boolean }) =>
            loadPreviousSession(
              readerOf(a.previous ?? ""),
              { runId, token: "t", owner: "o", repo: "r" },
              path.join(a.home, "previous"),
              options,
            ),
        }),
  });
  const inputs = RunStageInputs.parse({
    plan_path: PLAN_PATH,
    plan_id: "PLAN-demo",
    stage_id: "build",
    attempt: String(a.attempt),
    kind: a.kind,
    key: a.kind === "continue" ? KEY : "abc-pr1-PLAN-demo:build:1:dispatch",
    branch: "main",
    previous_run_id: a.kind === "continue" ? "111" : "",
    silence_timeout_minutes: "1",
    check_timeout_minutes: "1",
    allowed_tools: "Read,Write,Edit,Bash(git *)",
    claude_path: path.resolve(import.meta.dirname, "../../node_modules/.bin/claude"),
  });
  try {
    const { result } = await runStage(inputs, deps);
    return { result, requests: server.mainRequests() };
  } finally {
    await server.close();
  }
}

/** A sandbox checkout with the greeter plan committed. */
async function createPlanBox(): Promise<Sandbox> {
  const box = createSandbox();
  await mkdir(path.join(box.repo, "doc/plans"), { recursive: true });
  await writeFile(path.join(box.repo, PLAN_PATH), planText(GREETER_STAGE));
  box.git("add", PLAN_PATH);
  box.git("commit", "-q", "-m", "plan");
  return box;
}

/** A stage's first run (it writes greet.txt and says the job's key in passing), then a fresh runner for the next. */
async function firstRun(t: { after: (fn: () => Promise<void>) => void }) {
  const box = await createPlanBox();
  const scratch = await mkdtemp(path.join(tmpdir(), "loom-continue-"));
  t.after(async () => {
    box.cleanup();
    await rm(scratch, { recursive: true, force: true });
  });
  const first = await runAttempt({
    box,
    workspace: box.repo,
    home: path.join(scratch, "home-1"),
    uploads: path.join(scratch, "run-111"),
    kind: "stage",
    attempt: 1,
    turns: [
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
        blocks: [{ type: "text", text: `Wrote greet.txt. The job's key is ${SECRET}, which I did not use.` }],
      },
    ],
  });
  assert.equal(first.result.outcome, "completed", first.result.reason);
  // The next attempt runs on another runner: another checkout path, another HOME.
  const workspace = path.join(scratch, "checkout-2");
  git(scratch, "clone", "-q", box.repo, workspace);
  return { box, scratch, workspace, first };
}

/** Attempt 2, a continue of run 111 with alice's instructions, on the next runner. */
function continueRun(first: Awaited<ReturnType<typeof firstRun>>, turns: FakeTurn[]) {
  return runAttempt({
    box: first.box,
    workspace: first.workspace,
    home: path.join(first.scratch, "home-2"),
    uploads: path.join(first.scratch, "run-112"),
    kind: "continue",
    attempt: 2,
    record,
    previous: path.join(first.scratch, "run-111"),
    turns,
  });
}

const record: ContinueRecordRead = {
  ok: true,
  record: {
    version: 1,
    key: KEY,
    stage_id: "build",
    by: "alice",
    from_attempt: 1,
    instructions: INSTRUCTIONS,
  },
};

/** The text of every content block of a request's messages, in order. */
function textsOf(request: RecordedRequest | undefined): string {
  return JSON.stringify(request?.body?.messages ?? []);
}

test(
  "with the real Claude Code: /loom continue resumes the earlier session on another runner; its first request carries the earlier context and the instructions, and the state leaves the job redacted",
  { timeout: 170_000 },
  async (t) => {
    const first = await firstRun(t);
    const { scratch, workspace } = first;
    const state = await readFile(path.join(scratch, "run-111", "loom-session", "session.jsonl"), "utf8");
    assert.ok(!state.includes(SECRET), "the job's secret never leaves in the session state");
    assert.match(state, /The job's key is \[REDACTED\]/);

    const next = await continueRun(first, [
      {
        blocks: [
          {
            type: "tool_use",
            name: "Write",
            input: { file_path: path.join(workspace, "empty.txt"), content: "empty handled\n" },
          },
        ],
      },
      done,
    ]);
    assert.equal(next.result.outcome, "completed", next.result.reason);
    assert.equal(next.result.kind, "continue");
    assert.deepEqual(next.result.continued, { mode: "resumed", from_run_id: 111 });
    const [resumed] = next.requests;
    const messages = resumed?.body?.messages ?? [];
    // The earlier session's context: its Write of greet.txt and its answer, then the instructions.
    assert.match(textsOf(resumed), /"name":"Write","input":\{"file_path":"[^"]*greet\.txt"/);
    assert.match(textsOf(resumed), /Wrote greet\.txt\. The job's key is \[REDACTED\]/);
    const last = JSON.stringify(messages.at(-1)?.content ?? "");
    assert.match(last, /Instructions from @alice/);
    assert.match(last, /<instructions>\\nalso handle the empty case\\n<\/instructions>/);
    assert.equal(next.result.commits.length, 1, "the continue's work is committed");
    // The resumed session's state goes up again, so it can be continued once more.
    const again = await readFile(path.join(scratch, "run-112", "loom-session", "session.json"), "utf8");
    assert.equal(JSON.parse(again).attempt, 2);
  },
);

test(
  "with the real Claude Code: without the earlier session's state a continue starts fresh with a handoff prompt carrying the earlier result and the instructions, and says why",
  { timeout: 170_000 },
  async (t) => {
    const first = await firstRun(t);
    // The state artifact expired: only the result is left of run 111.
    await rm(path.join(first.scratch, "run-111", "loom-session"), { recursive: true });
    const next = await continueRun(first, [done]);
    assert.equal(next.result.continued?.mode, "handoff");
    assert.match(next.result.continued?.reason ?? "", /run 111 left no loom-session/);
    const [fresh] = next.requests;
    assert.ok(
      !(fresh?.body?.messages ?? []).some((m) => m.role === "assistant"),
      "a new conversation, not a resumed one",
    );
    const prompt = textsOf(fresh);
    assert.match(prompt, /Attempt 1 \(stage session\) ended completed/);
    assert.match(prompt, /<instructions>\\nalso handle the empty case\\n<\/instructions>/);
    assert.match(prompt, /Carry out the instructions from @alice/);
  },
);

test("a continue whose instructions cannot be read for this run never starts a session", async (t) => {
  const box = await createPlanBox();
  t.after(() => box.cleanup());
  const next = await runAttempt({
    box,
    workspace: box.repo,
    home: path.join(box.dir, "home-2"),
    uploads: path.join(box.dir, "uploads"),
    kind: "continue",
    attempt: 2,
    record: { ok: false, reason: "refs/loom/continue/main is the record of another run (x)" },
    turns: [],
  });
  assert.equal(next.result.outcome, "crashed");
  assert.match(
    next.result.reason,
    /not started: the instructions for this run could not be read: .*another run/,
  );
  assert.equal(next.requests.length, 0, "no session ran");
});

test("a continue whose session Claude Code does not resume (it ends with no turn) runs a fresh session with the handoff prompt in the same run, and says why", async (t) => {
  const f = await makeFixture(GREETER_STAGE, t);
  const sessionId = "71278deb-52e9-4b55-b355-17c5214b97c0";
  const transcript = `${JSON.stringify({ type: "user", sessionId, message: { role: "user", content: "go" } })}\n`;
  const calls: RunSessionOptions[] = [];
  const previous = await runStage(
    inputs(),
    deps(f, (o) => finishedSession(o)),
  );
  const run = await runStage(
    inputs({ kind: "continue", attempt: "2", key: KEY, previous_run_id: "111" }),
    deps(
      f,
      async (o) => {
        calls.push(o);
        if (o.resume !== undefined)
          return stoppedOutcome("crashed", "build", 2, Date.now(), o.transcriptPath, "No conversation found");
        await writeFile(path.join(o.cwd, "greet.txt"), "hello\n");
        return finishedSession(o);
      },
      {
        sessionEnv: { PATH: process.env.PATH, HOME: path.join(f.root, "home") },
        readContinueRecord: () => Promise.resolve(record),
        loadPrevious: () =>
          Promise.resolve({
            notes: [],
            result: previous.result,
            sessionState: { ok: true, sessionId, transcript },
          }),
      },
    ),
  );
  assert.deepEqual(
    calls.map((o) => o.resume),
    [sessionId, undefined],
  );
  assert.match(calls[0]?.prompt ?? "", /## Where You Are/);
  assert.match(calls[1]?.prompt ?? "", /## Previous Session Handoff[\s\S]*## Instructions from @alice/);
  // The transcript was put where Claude Code's --resume looks for it, for this checkout.
  const restored = path.join(
    f.root,
    "home",
    ".claude",
    "projects",
    makeProjectSlug(await realpath(f.workspace)),
  );
  assert.equal(await readFile(path.join(restored, `${sessionId}.jsonl`), "utf8"), transcript);
  assert.equal(run.result.outcome, "completed", run.result.reason);
  assert.equal(run.result.continued?.mode, "handoff");
  assert.match(
    run.result.continued?.reason ?? "",
    /^Claude Code did not resume it \(No conversation found\)/,
  );
});
