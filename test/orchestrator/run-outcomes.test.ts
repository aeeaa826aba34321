import { test } from "node:test";
import assert from "node:assert/strict";
import type { RunOutcome } from "../../src/orchestrator/events.ts";
import { Story, makePlan } from "./story.ts";

const single = makePlan([["a", []]]);

const STAGE_RUNS: [RunOutcome, string, string, string][] = [
  ["completed", "completed", "completed", "attempt 1: completed"],
  [
    "completed-with-failures",
    "completed",
    "completed-with-failures",
    "attempt 1: acceptance failed: tests failed",
  ],
  ["needs-handoff", "context-exhausted", "executing", "attempt 2: recovery session dispatched"],
  ["crashed", "crashed", "blocked", "attempt 1 crashed: tests failed; retry 1 of 2 in 30 s"],
  ["hung", "hung", "blocked", "attempt 1 hung: tests failed; retry 1 of 2 in 30 s"],
  ["timed-out", "crashed", "blocked", "attempt 1 timed-out: tests failed; retry 1 of 2 in 30 s"],
];

for (const [outcome, session, stage, note] of STAGE_RUNS) {
  test(`a stage run that ends ${outcome} leaves its session ${session} and the stage ${stage}, noting why`, () => {
    const story = new Story(single);
    story.run("a", outcome, "tests failed");
    const first = story.stage("a").sessions[0]!;
    assert.equal(first.status, session);
    assert.equal(first.outcome, outcome);
    assert.equal(first.detail, "tests failed");
    assert.equal(first.finishedAt, story.at);
    assert.equal(story.stage("a").status, stage);
    const notes = story.stage("a").notes.map((n) => n.text);
    assert.ok(notes.includes(note), notes.join("\n"));
  });
}

test("a handoff notes the exhausted context and queues a recovery session", () => {
  const story = new Story(single);
  story.run("a", "needs-handoff");
  assert.deepEqual(
    story
      .stage("a")
      .notes.slice(-3)
      .map((n) => n.text),
    [
      "attempt 1: context exhausted, handoff written",
      "queued: a recovery session continues from the handoff",
      "attempt 2: recovery session dispatched",
    ],
  );
});

/** A stage in merge-conflict whose merge session (attempt 2) has been dispatched. */
function conflicted(): Story {
  const story = new Story(single, { settings: { maxAttempts: 5 } });
  story.run("a", "completed");
  story.merge("a", "conflict");
  return story;
}

test("a merge session that runs out of context is continued by another one", () => {
  const story = conflicted();
  story.run("a", "needs-handoff");
  assert.equal(story.stage("a").status, "merge-conflict");
  assert.ok(
    story
      .stage("a")
      .notes.some((n) => n.text === "attempt 2: merge session ran out of context; another one continues"),
  );
  assert.deepEqual(
    story.of("dispatchRun").map((d) => [d.kind, d.attempt]),
    [["merge", 3]],
  );
});

for (const outcome of ["completed-with-failures", "cancelled"] as const) {
  test(`a merge session that ends ${outcome} leaves the stage merge-blocked with the reason`, () => {
    const story = conflicted();
    story.run("a", outcome, "could not resolve");
    assert.equal(story.stage("a").status, "merge-blocked");
    assert.equal(
      story.stage("a").notes.at(-1)?.text,
      `attempt 2: merge session ${outcome}: could not resolve`,
    );
  });
}

test("a crashed merge session is retried after the backoff, noted as a merge", () => {
  const story = conflicted();
  story.run("a", "timed-out", "job timeout");
  assert.equal(story.stage("a").status, "merge-conflict");
  assert.equal(
    story.stage("a").notes.at(-1)?.text,
    "attempt 2 (merge) timed-out: job timeout; retry 1 of 4 in 30 s",
  );
});

test("a heartbeat before run.started starts the session; only a newer heartbeat counts as a sign of life", () => {
  const story = new Story(single);
  story.send({ type: "run.dispatched", stageId: "a", attempt: 1, runId: 1 });
  const beat = (timestamp: number) =>
    story.send({
      type: "heartbeat.seen",
      stageId: "a",
      attempt: 1,
      heartbeat: { timestamp, contextPercent: 10, lastTool: "Bash", activity: null, turns: 2, costUsd: 0.1 },
    });
  beat(5);
  const session = () => story.stage("a").sessions[0]!;
  assert.equal(session().status, "running");
  assert.equal(session().startedAt, story.at);
  assert.equal(session().lastSeenAt, story.at);
  const seen = story.at;
  beat(5);
  assert.equal(session().lastSeenAt, seen);
  beat(6);
  assert.equal(session().lastSeenAt, story.at);
  assert.equal(session().lastHeartbeat?.timestamp, 6);
  story.send({ type: "run.started", stageId: "a", attempt: 1, runId: 1 });
  assert.equal(session().startedAt, seen, "a late run.started does not restart the session");
});

/** Stage `a`'s attempt `attempt` dispatched as run `runId`, started and finished `completed` on `headSha`. */
function complete(story: Story, attempt: number, runId: number, headSha?: string) {
  story.send({ type: "run.dispatched", stageId: "a", attempt, runId });
  story.send({ type: "run.started", stageId: "a", attempt, runId });
  return story.send({
    type: "run.finished",
    stageId: "a",
    attempt,
    runId,
    outcome: "completed",
    detail: "",
    ...(headSha === undefined ? {} : { headSha }),
  });
}

test("the merge takes the commit the checks ran on; a later run naming none never merges the earlier one", () => {
  const story = new Story(single);
  const checked = "c".repeat(40);
  const merges = complete(story, 1, 71, checked).filter((e) => e.type === "mergeBranch");
  assert.deepEqual(
    merges.map((e) => e.sha),
    [checked],
  );
  story.send({ type: "merge.finished", stageId: "a", outcome: "conflict", detail: "both changed x" });
  const again = complete(story, 2, 72).filter((e) => e.type === "mergeBranch");
  assert.deepEqual(
    again.map((e) => e.sha),
    [undefined],
    "the merge session's result names no commit: the branch is merged, not attempt 1's commit",
  );
});

test("a run whose id arrives after its session was given up as hung is cancelled", () => {
  const story = new Story(single, { settings: { heartbeatTimeoutMs: 300_000 } });
  story.send({ type: "tick" }, 300_000);
  assert.equal(story.stage("a").sessions[0]?.status, "hung");
  const effects = story.send({ type: "run.dispatched", stageId: "a", attempt: 1, runId: 73 });
  assert.deepEqual(
    effects.filter((e) => e.type === "cancelRun").map((e) => e.runId),
    [73],
  );
});

test("a heartbeat of an attempt that already ended changes nothing and is recorded as rejected", () => {
  const story = new Story(single);
  complete(story, 1, 74, "c".repeat(40));
  const before = structuredClone(story.stage("a").sessions[0]);
  story.send({
    type: "heartbeat.seen",
    stageId: "a",
    attempt: 1,
    heartbeat: { timestamp: story.at + 1000, activity: "late", turns: 9, costUsd: 1 } as never,
  });
  assert.deepEqual(story.stage("a").sessions[0], before);
  assert.match(
    story.state.rejected.at(-1)?.reason ?? "",
    /heartbeat for attempt 1, which is already completed/,
  );
});
