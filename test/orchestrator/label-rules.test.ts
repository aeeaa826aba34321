import { test } from "node:test";
import assert from "node:assert/strict";
import { Story, makePlan } from "./story.ts";

const pair = makePlan([
  ["a", []],
  ["b", ["a"]],
]);

const labels = (story: Story, names: string[]) => story.send({ type: "labels.changed", labels: names });

test("a label naming no stage is recorded once, when it appears; labels naming stages are not", () => {
  const story = new Story(pair);
  labels(story, ["loom:skip:ghost", "loom:block:b", "bug"]);
  assert.deepEqual(
    story.state.rejected.map((r) => r.reason),
    ["label loom:skip:ghost names no stage of PLAN-demo"],
  );
  labels(story, ["loom:skip:ghost", "loom:block:b", "bug", "loom:hold"]);
  assert.equal(story.state.rejected.length, 1, "the same label seen again is not recorded again");
  assert.deepEqual(story.state.labels, ["loom:skip:ghost", "loom:block:b", "bug", "loom:hold"]);
});

test("a block label seen again on the next label change leaves the blocked stage as it is", () => {
  const story = new Story(pair);
  labels(story, ["loom:block:b"]);
  assert.equal(story.stage("b").status, "blocked");
  assert.equal(story.stage("b").blockedBy, "label");
  const notes = story.stage("b").notes.length;
  labels(story, ["loom:block:b", "bug"]);
  assert.equal(story.stage("b").status, "blocked");
  assert.equal(story.stage("b").notes.length, notes);
  assert.deepEqual(story.state.rejected, []);
});

test("the notes say which label skipped, blocked and released a stage", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", []],
      ["c", []],
    ]),
    { settings: { maxParallel: 1 } },
  );
  labels(story, ["loom:skip:b", "loom:block:c"]);
  assert.match(story.stage("b").notes.at(-1)?.text ?? "", /^skipped by label loom:skip:b: /);
  assert.equal(story.stage("c").notes.at(-1)?.text, "blocked by label loom:block:c");
  labels(story, []);
  assert.equal(story.stage("c").notes.at(-1)?.text, "unblocked by removing label loom:block:c");
  assert.equal(story.stage("c").status, "queued");
});

test("removing labels does not release a stage a person blocked with /loom block", () => {
  const story = new Story(pair);
  story.command("block", "b");
  labels(story, ["bug"]);
  assert.equal(story.stage("b").status, "blocked");
  assert.equal(story.stage("b").blockedBy, "command");
});

test("a skip or block label on a finished stage changes nothing and records nothing", () => {
  const story = new Story(pair);
  story.pass("a");
  labels(story, ["loom:skip:a", "loom:block:a"]);
  assert.equal(story.stage("a").status, "completed");
  assert.equal(story.stage("a").merged, true);
  assert.deepEqual(story.state.rejected, []);
});

test("labels do not act on a stage removed from the plan file; they are recorded as naming no stage", () => {
  const story = new Story(pair);
  story.run("a", "crashed");
  story.send({ type: "plan.changed", plan: makePlan([["b", []]]) });
  assert.equal(story.stage("a").removed, true);
  const status = story.stage("a").status;
  labels(story, ["loom:skip:a"]);
  assert.equal(story.stage("a").status, status);
  assert.equal(story.stage("a").skippedBy, null);
  assert.deepEqual(
    story.state.rejected.map((r) => r.reason),
    ["label loom:skip:a names no stage of PLAN-demo"],
  );
});
