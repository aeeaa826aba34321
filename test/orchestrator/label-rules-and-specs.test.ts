import { test } from "node:test";
import assert from "node:assert/strict";
import { Story, makePlan } from "./story.ts";

const pair = makePlan([
  ["a", []],
  ["b", ["a"]],
]);

const labels = (story: Story, names: string[]) => story.send({ type: "labels.changed", labels: names });

/** Answers every `ensureLabel` as the app does, until none is left; returns the labels in order. */
function answerLabels(story: Story) {
  const asked = [];
  for (let next = story.of("ensureLabel")[0]; next !== undefined; next = story.of("ensureLabel")[0]) {
    asked.push(next.label);
    story.send({ type: "label.ensured", name: next.label.name });
  }
  return asked;
}

test("a block label on a stage a person blocked with /loom block takes it over: removing the label releases it", () => {
  const story = new Story(pair);
  story.command("block", "b");
  labels(story, ["loom:block:b"]);
  assert.equal(story.stage("b").blockedBy, "label");
  assert.equal(story.stage("b").notes.at(-1)?.text, "blocked by label loom:block:b");
  labels(story, []);
  assert.equal(story.stage("b").status, "waiting-for-deps");
  assert.equal(story.stage("b").notes.at(-1)?.text, "unblocked by removing label loom:block:b");
});

test("the block label's description tells people picking it in GitHub's label menu what it does", () => {
  const story = new Story(makePlan([["api", []]]), { settings: { stageLabels: true } });
  assert.deepEqual(answerLabels(story).at(-1), {
    name: "loom:block:api",
    color: "d93f0b",
    description: "loom: hold stage api back until this label is removed",
  });
});

test("no labels are created for a stage the plan file dropped before its labels were made", () => {
  const story = new Story(pair, { settings: { stageLabels: true } });
  story.send({ type: "plan.changed", plan: makePlan([["b", []]], "c".repeat(40)) });
  assert.equal(story.stage("a").removed, true);
  story.send({ type: "label.ensured", name: "loom:hold" });
  assert.deepEqual(
    answerLabels(story).map((label) => label.name),
    ["loom:skip:b", "loom:block:b"],
  );
});

test("a label name of exactly 50 characters, the most GitHub accepts, is still created", () => {
  const id = "s".repeat(50 - "loom:block:".length);
  const story = new Story(makePlan([[id, []]]), { settings: { stageLabels: true } });
  assert.deepEqual(
    answerLabels(story).map((label) => label.name.length),
    [9, 49, 50],
  );
});

test("a label the app reports twice is recorded once and not asked for again", () => {
  const story = new Story(makePlan([["api", []]]));
  story.send({ type: "label.ensured", name: "loom:hold" });
  story.send({ type: "label.ensured", name: "loom:hold" });
  assert.deepEqual(story.state.labelsEnsured, ["loom:hold"]);
  assert.deepEqual(story.of("ensureLabel"), []);
});
