import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { runStage } from "../../action/src/run-stage.ts";
import type { RunSessionOptions } from "../../action/src/session/run-session.ts";
import type { AmendRecord } from "../../src/artifacts/amend-record.ts";
import { deps, finishedSession, git, inputs, makeFixture } from "./run-stage-fixture.ts";

/*
 * A session disputes one of its acceptance criteria (`dispute.json`, the reference's
 * `dispute-criteria`); a `check` run re-runs the checks with a person's amendment, no model.
 */

const STAGE = `
- id: build
  name: Build the greeter
  description: Write greet.txt saying hello
  acceptance:
    - "grep hello greet.txt"
    - "./tools/strict-lint greet.txt"
`;

/** The session writes greet.txt and, when `dispute` is given, the dispute file the prompt names. */
function session(dispute?: string) {
  return async (o: RunSessionOptions) => {
    await writeFile(path.join(o.cwd, "greet.txt"), "hello\n");
    const named = /write one JSON object to `([^`]+dispute\.json)`/.exec(o.prompt)?.[1];
    assert.ok(named, "the prompt names the dispute file");
    if (dispute !== undefined) await writeFile(named, dispute);
    return finishedSession(o);
  };
}

const DISPUTE = JSON.stringify({ criterion_index: 1, reason: "tools/strict-lint does not exist here" });

test("a session's dispute of a criterion that failed rides in loom-result with the criterion and the reason", async (t) => {
  const f = await makeFixture(STAGE, t);
  const { result } = await runStage(inputs(), deps(f, session(DISPUTE)));
  assert.equal(result.outcome, "completed-with-failures");
  assert.deepEqual(result.dispute, {
    criterion_index: 1,
    criterion: "./tools/strict-lint greet.txt",
    reason: "tools/strict-lint does not exist here",
  });
});

const ignored: { name: string; file: string }[] = [
  {
    name: "names a criterion that passed",
    file: JSON.stringify({ criterion_index: 0, reason: "grep is wrong" }),
  },
  {
    name: "names a criterion the stage does not have",
    file: JSON.stringify({ criterion_index: 7, reason: "x" }),
  },
  { name: "is not JSON", file: "criterion 2 is wrong" },
  { name: "gives no reason", file: JSON.stringify({ criterion_index: 1 }) },
];

for (const c of ignored) {
  test(`a dispute that ${c.name} is not taken: the run fails as usual and the log says why`, async (t) => {
    const f = await makeFixture(STAGE, t);
    const logged: string[] = [];
    const { result } = await runStage(
      inputs(),
      deps(f, session(c.file), { log: (message, data) => logged.push(`${message} ${JSON.stringify(data)}`) }),
    );
    assert.equal(result.outcome, "completed-with-failures");
    assert.equal(result.dispute, undefined);
    assert.ok(
      logged.some((line) => line.startsWith("dispute not taken")),
      logged.join("\n"),
    );
  });
}

test("a dispute by exact command is taken; a dispute whose index and command disagree is not", async (t) => {
  const f = await makeFixture(STAGE, t);
  const byText = JSON.stringify({ criterion: "./tools/strict-lint greet.txt", reason: "no such tool" });
  assert.equal((await runStage(inputs(), deps(f, session(byText)))).result.dispute?.criterion_index, 1);
  const g = await makeFixture(STAGE, t);
  const mixed = JSON.stringify({
    criterion_index: 0,
    criterion: "./tools/strict-lint greet.txt",
    reason: "x",
  });
  assert.equal((await runStage(inputs(), deps(g, session(mixed)))).result.dispute, undefined);
});

/** A fixture whose branch already holds the session's work (what the disputed run pushed). */
async function checked(t: { after: (fn: () => Promise<void>) => void }) {
  const f = await makeFixture(STAGE, t);
  await writeFile(path.join(f.workspace, "greet.txt"), "hello\n");
  git(f.workspace, "add", ".");
  git(f.workspace, "commit", "-q", "-m", "greet");
  return { f, sha: git(f.workspace, "rev-parse", "HEAD") };
}

function record(sha: string, command = "test -f greet.txt"): AmendRecord {
  return {
    version: 1,
    key: "blob123:build:2",
    stage_id: "build",
    checked_sha: sha,
    amendments: [{ criterion_index: 1, command, by: "alice" }],
  };
}

const noSession = () => Promise.reject(new Error("a check run runs no session"));

test("a check run runs no session: the amended checks pass on the disputed commit, and the stage completes", async (t) => {
  const { f, sha } = await checked(t);
  const { result } = await runStage(
    inputs({ kind: "check", attempt: "2", key: "blob123:build:2" }),
    deps(f, noSession, { readAmendRecord: () => Promise.resolve({ ok: true, record: record(sha) }) }),
  );
  assert.equal(result.outcome, "completed", result.reason);
  assert.match(result.reason, /checks run again with 1 amended criterion, no model: all 2 checks pass/);
  assert.deepEqual(
    result.checks.map((c) => [c.name, c.passed]),
    [
      ["grep hello greet.txt", true],
      ["test -f greet.txt", true],
    ],
  );
  assert.equal(result.head_sha, sha);
  assert.equal(result.turns, 0);
  assert.ok(f.uploads.has("loom-heartbeat-1"), "a heartbeat while the checks run (no session sends one)");
});

test("a check run whose amended criterion fails leaves the stage failed, naming it", async (t) => {
  const { f, sha } = await checked(t);
  const { result } = await runStage(
    inputs({ kind: "check", attempt: "2", key: "blob123:build:2" }),
    deps(f, noSession, {
      readAmendRecord: () => Promise.resolve({ ok: true, record: record(sha, "test -f nope") }),
    }),
  );
  assert.equal(result.outcome, "completed-with-failures");
  assert.match(result.reason, /1 of 2 checks failed, first: acceptance test -f nope/);
});

test("a check run checks nothing on a stage branch that moved since the dispute, and without its record it does not start", async (t) => {
  const { f } = await checked(t);
  const moved = await runStage(
    inputs({ kind: "check", attempt: "2", key: "blob123:build:2" }),
    deps(f, noSession, {
      readAmendRecord: () => Promise.resolve({ ok: true, record: record("f".repeat(40)) }),
    }),
  );
  assert.equal(moved.result.outcome, "completed-with-failures");
  assert.match(moved.result.reason, /not fffffff, the commit the amendment is for: nothing was checked/);
  assert.deepEqual(moved.result.checks, []);
  const missing = await runStage(
    inputs({ kind: "check", attempt: "2", key: "blob123:build:2" }),
    deps(f, noSession, {
      readAmendRecord: () => Promise.resolve({ ok: false, reason: "refs/loom/amend/x does not exist" }),
    }),
  );
  assert.equal(missing.result.outcome, "crashed");
  assert.match(
    missing.result.reason,
    /the amended criteria could not be read: refs\/loom\/amend\/x does not exist/,
  );
});

/** A later session: it sees the criteria in its prompt and writes greet.txt. */
function laterSession(prompts: string[]) {
  return async (o: RunSessionOptions) => {
    prompts.push(o.prompt);
    await writeFile(path.join(o.cwd, "greet.txt"), "hello again\n");
    return finishedSession(o);
  };
}

test("an amendment holds for the stage's later sessions: a retry is told the amended criterion and checked against it", async (t) => {
  const f = await makeFixture(STAGE, t);
  const prompts: string[] = [];
  const read: string[] = [];
  const { result } = await runStage(
    inputs({ kind: "stage", attempt: "3", key: "blob123:build:3" }),
    deps(f, laterSession(prompts), {
      readAmendRecord: () => {
        read.push("amend record");
        return Promise.resolve({
          ok: true,
          record: { ...record("a".repeat(40)), key: "blob123:build:3" },
        });
      },
    }),
  );
  assert.deepEqual(read, ["amend record"], "read once");
  assert.equal(result.outcome, "completed", result.reason);
  assert.deepEqual(
    result.checks.map((c) => c.name),
    ["grep hello greet.txt", "test -f greet.txt"],
  );
  assert.match(prompts[0] ?? "", /- \[ \] `test -f greet\.txt`/);
  assert.doesNotMatch(prompts[0] ?? "", /- \[ \] `\.\/tools\/strict-lint/);
  assert.match(
    prompts[0] ?? "",
    /criterion 2 is `test -f greet\.txt`, amended by @alice \(`\/loom amend`\); the plan file still says `\.\/tools\/strict-lint greet\.txt`/,
  );
});

test("a stage never amended (no record), or a record for another run, keeps the plan's criteria; a record GitHub cannot answer for starts nothing", async (t) => {
  for (const answer of [
    { ok: false as const, reason: "refs/loom/amend/x does not exist", why: "missing" as const },
    {
      ok: false as const,
      reason: "refs/loom/amend/x is the record of another run (k)",
      why: "other-run" as const,
    },
  ]) {
    const f = await makeFixture(STAGE, t);
    const { result } = await runStage(
      inputs({ kind: "recovery", attempt: "2", key: "blob123:build:2" }),
      deps(f, laterSession([]), { readAmendRecord: () => Promise.resolve(answer) }),
    );
    assert.equal(result.outcome, "completed-with-failures", answer.why);
    assert.match(result.reason, /first: acceptance \.\/tools\/strict-lint greet\.txt/, answer.why);
  }
  const f = await makeFixture(STAGE, t);
  const { result } = await runStage(
    inputs({ kind: "continue", attempt: "2", key: "blob123:build:2" }),
    deps(f, noSession, {
      readAmendRecord: () =>
        Promise.resolve({ ok: false, reason: "reading refs/loom/amend/x failed: GitHub answered 502" }),
    }),
  );
  assert.equal(result.outcome, "crashed");
  assert.match(
    result.reason,
    /not started: the stage's amended criteria could not be read: .*GitHub answered 502/,
  );
});

test("a first attempt never looks for amendments (nothing to amend yet)", async (t) => {
  const f = await makeFixture(STAGE, t);
  const looked: string[] = [];
  await runStage(
    inputs(),
    deps(f, laterSession([]), {
      readAmendRecord: () => {
        looked.push("first attempt");
        return Promise.resolve({ ok: false, reason: "x", why: "missing" });
      },
    }),
  );
  assert.deepEqual(looked, []);
});
