import assert from "node:assert/strict";
import { test } from "node:test";
import { nextWakeAt } from "../../src/orchestrator/step.ts";
import { KEY, Story, makePlan } from "./story.ts";

test("with max_attempts 10 every wait before a retry stays at the backoff cap (300 s by default)", () => {
  const story = new Story(makePlan([["a", []]]), { settings: { maxAttempts: 10 } });
  const waits: number[] = [];
  for (let failure = 1; failure < 10; failure++) {
    story.run("a", "crashed");
    const retryAt = story.stage("a").retryAt;
    assert.ok(retryAt !== null, `failure ${failure} is retried`);
    waits.push((retryAt - story.at) / 1000);
    story.send({ type: "tick" }, retryAt - story.at);
  }
  assert.deepEqual(waits, [30, 60, 120, 240, 300, 300, 300, 300, 300]);
  story.run("a", "crashed");
  assert.deepEqual(
    [story.stage("a").status, story.stage("a").retryAt],
    ["blocked", null],
    "the 10th failure gives up",
  );
});

test("a runner-wait notice set later than the cancel time is given at the cancel time, with the wait in minutes", () => {
  const story = new Story(makePlan([["a", []]]), {
    settings: { runnerNoticeMs: 3_600_000, runnerTimeoutMs: 600_000, backoffBaseMs: 1_000 },
  });
  story.send({ type: "run.dispatched", stageId: "a", attempt: 1, runId: 5 });
  const dispatchedAt = story.stage("a").sessions[0]!.dispatchedAt;
  assert.equal(nextWakeAt(story.state), dispatchedAt + 600_000);
  story.send({ type: "tick" }, dispatchedAt + 600_000 - story.at - 1);
  assert.notEqual(story.stage("a").sessions[0]?.runnerWaitNoticed, true, "not a millisecond early");
  story.send({ type: "tick" }, 1);
  const session = story.stage("a").sessions[0]!;
  assert.equal(session.runnerWaitNoticed, true);
  assert.equal(session.status, "cancelled");
  assert.equal(session.neverStarted, true);
  assert.equal(session.outcome, "cancelled");
  assert.deepEqual(
    story.of("cancelRun").map((e) => [e.key, e.runId]),
    [[`${KEY}:a:1:cancel`, 5]],
  );
  assert.match(story.stage("a").notes.at(-2)?.text ?? "", /for 10 min; check that a runner/);
  assert.match(
    story.stage("a").notes.at(-1)?.text ?? "",
    /^attempt 1 was never picked up by a runner \(10 min\); retry 1 of 2 in 1 s$/,
  );
});

test("after a person's retry, a run no runner picked up is dispatched once more before loom gives up again", () => {
  const story = new Story(makePlan([["a", []]]), {
    settings: { runnerNoticeMs: 60_000, runnerTimeoutMs: 60_000, backoffBaseMs: 1_000 },
  });
  const waitOut = (attempt: number) => {
    story.send({ type: "run.dispatched", stageId: "a", attempt, runId: 10 + attempt });
    story.send({ type: "tick" }, 60_000);
  };
  waitOut(1);
  story.send({ type: "tick" }, 1_000);
  waitOut(2);
  assert.equal(story.stage("a").blockedBy, "retries");
  story.command("retry", "a");
  waitOut(3);
  assert.equal(story.stage("a").status, "blocked");
  assert.notEqual(story.stage("a").retryAt, null, "retried once more: the person's retry reset the count");
});
