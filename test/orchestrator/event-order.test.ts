import assert from "node:assert/strict";
import { test } from "node:test";
import { Story, makePlan } from "./story.ts";

test("a run that crashes before loom recorded its dispatch still gets its retry; the late dispatch changes nothing", () => {
  const story = new Story(makePlan([["a", []]]));
  story.send({
    type: "run.finished",
    stageId: "a",
    attempt: 1,
    runId: 55,
    outcome: "crashed",
    detail: "runner lost",
  });
  assert.equal(story.stage("a").status, "blocked");
  assert.equal(story.stage("a").blockedBy, null, "blocked only until the retry, not by a person");
  const retryAt = story.stage("a").retryAt;
  assert.ok(retryAt !== null && retryAt > story.at, "a retry is scheduled");
  assert.equal(story.stage("a").sessions[0]?.runId, 55, "the run id is taken from the finish");

  story.send({ type: "run.dispatched", stageId: "a", attempt: 1, runId: 55 });
  assert.equal(story.stage("a").status, "blocked");
  assert.equal(story.stage("a").retryAt, retryAt);

  story.send({ type: "tick" }, retryAt - story.at);
  assert.deepEqual(story.dispatched(), ["a"], "the retry is dispatched when due");
  assert.equal(story.stage("a").sessions.at(-1)?.kind, "recovery");
});

test("a run that completes before loom recorded its dispatch is merged like any other", () => {
  const story = new Story(makePlan([["a", []]]));
  story.send({ type: "run.finished", stageId: "a", attempt: 1, runId: 56, outcome: "completed", detail: "" });
  assert.equal(story.stage("a").status, "completed");
  assert.deepEqual(
    story.of("mergeBranch").map((e) => e.stageId),
    ["a"],
  );
});
