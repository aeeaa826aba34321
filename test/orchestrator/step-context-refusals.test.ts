import { test } from "node:test";
import assert from "node:assert/strict";
import { endSession, moveStage } from "../../src/orchestrator/step-context.ts";
import type { StepContext } from "../../src/orchestrator/step-context.ts";
import { Story, makePlan } from "./story.ts";

/** A working copy of the story's state at a later time, as `step` hands it to its handlers. */
function contextOf(story: Story, at = story.at + 5000): StepContext {
  return { state: structuredClone(story.state), effects: [], at };
}

test("a refused stage move is recorded with its reason and leaves the stage and its notes as they were", () => {
  const story = new Story(makePlan([["a", []]]));
  story.pass("a");
  const ctx = contextOf(story);
  const stage = ctx.state.stages.a!;
  const notes = stage.notes.length;
  assert.equal(moveStage(ctx, stage, "merge-blocked", "should not be written"), false);
  assert.equal(stage.status, "completed");
  assert.equal(stage.notes.length, notes);
  assert.deepEqual(ctx.state.rejected.at(-1), {
    at: ctx.at,
    stageId: "a",
    reason: "stage is completed and merged; it cannot become merge-blocked",
  });
});

test("an allowed stage move says so and writes its note at the step's time", () => {
  const story = new Story(makePlan([["a", []]]));
  story.run("a", "completed-with-failures", "tests failed");
  const ctx = contextOf(story);
  const stage = ctx.state.stages.a!;
  assert.equal(moveStage(ctx, stage, "queued", "retry requested"), true);
  assert.equal(stage.status, "queued");
  assert.deepEqual(stage.notes.at(-1), { at: ctx.at, text: "retry requested" });
  assert.deepEqual(ctx.state.rejected, []);
});

test("a session that has ended cannot end again: the refusal names the attempt and the session keeps its end", () => {
  const story = new Story(makePlan([["a", []]]));
  story.run("a", "crashed", "runner lost");
  const ctx = contextOf(story);
  const session = ctx.state.stages.a!.sessions.at(-1)!;
  const finishedAt = session.finishedAt;
  assert.equal(endSession(ctx, "a", session, "cancelled"), false);
  assert.equal(session.status, "crashed");
  assert.equal(session.finishedAt, finishedAt);
  assert.deepEqual(ctx.state.rejected.at(-1), {
    at: ctx.at,
    stageId: "a",
    reason: "attempt 1: a session cannot go from crashed to cancelled",
  });
});

test("ending a session records when it finished; a session that starts running has no end time", () => {
  const story = new Story(makePlan([["a", []]]));
  const ctx = contextOf(story);
  const session = ctx.state.stages.a!.sessions.at(-1)!;
  assert.equal(session.status, "spawning");
  assert.equal(endSession(ctx, "a", session, "running"), true);
  assert.equal(session.finishedAt, null);
  assert.equal(endSession(ctx, "a", session, "cancelled"), true);
  assert.equal(session.status, "cancelled");
  assert.equal(session.finishedAt, ctx.at);
  assert.deepEqual(ctx.state.rejected, []);
});
