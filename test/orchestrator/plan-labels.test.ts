import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Effect } from "../../src/orchestrator/effects.ts";
import { KEY, Story, makePlan } from "./story.ts";

type EnsureLabel = Extract<Effect, { type: "ensureLabel" }>;

/** Answers every `ensureLabel` as the app does, until none is left; returns the names in order. */
function answerLabels(story: Story, limit = 100): string[] {
  const names: string[] = [];
  let pending = story.of("ensureLabel");
  for (let i = 0; i < limit && pending.length > 0; i++) {
    const [label] = pending as [EnsureLabel];
    names.push(label.label.name);
    story.send({ type: "label.ensured", name: label.label.name });
    pending = story.of("ensureLabel");
  }
  return names;
}

describe("loom's labels are created when a plan first appears", () => {
  it("asks for hold, then with stage_labels skip and block of every stage, one at a time, after the dispatches", () => {
    const story = new Story(
      makePlan([
        ["api", []],
        ["ui", ["api"]],
      ]),
      { settings: { stageLabels: true } },
    );
    const types = story.effects.map((e) => e.type);
    assert.equal(types.at(-1), "ensureLabel", "labels come after everything else the step decided");
    assert.ok(types.indexOf("dispatchRun") < types.indexOf("ensureLabel"));
    assert.equal(story.of("ensureLabel").length, 1);
    assert.deepEqual(story.of("ensureLabel")[0], {
      type: "ensureLabel",
      key: `${KEY}:@label:loom:hold`,
      label: {
        name: "loom:hold",
        color: "fbca04",
        description: "loom: start no new stage sessions on this pull request until removed",
      },
    });
    assert.deepEqual(answerLabels(story), [
      "loom:hold",
      "loom:skip:api",
      "loom:block:api",
      "loom:skip:ui",
      "loom:block:ui",
    ]);
    assert.equal(story.state.labelsEnsured?.length, 5);
  });

  it("describes each stage label for people picking it in GitHub's label menu", () => {
    const story = new Story(makePlan([["api", []]]), { settings: { stageLabels: true } });
    story.send({ type: "label.ensured", name: "loom:hold" });
    assert.deepEqual(story.of("ensureLabel")[0]?.label, {
      name: "loom:skip:api",
      color: "c5def5",
      description: "loom: skip stage api — its dependents treat it as done",
    });
  });

  it("does not ask again while a label is pending, nor for labels already dealt with", () => {
    const story = new Story(makePlan([["api", []]]));
    story.send({ type: "run.dispatched", stageId: "api", attempt: 1, runId: 11 });
    assert.deepEqual(story.of("ensureLabel"), [], "the hold label is still pending in the outbox");
    answerLabels(story);
    story.send({ type: "tick" });
    story.send({ type: "plan.changed", plan: makePlan([["api", []]], "c".repeat(40)) });
    assert.deepEqual(story.of("ensureLabel"), []);
  });

  it("asks for the labels of stages a changed plan adds, and only those", () => {
    const story = new Story(makePlan([["api", []]]), { settings: { stageLabels: true } });
    answerLabels(story);
    story.send({
      type: "plan.changed",
      plan: makePlan(
        [
          ["api", []],
          ["docs", []],
        ],
        "c".repeat(40),
      ),
    });
    assert.deepEqual(answerLabels(story), ["loom:skip:docs", "loom:block:docs"]);
  });

  it("uses the repository's label prefix and leaves out names GitHub would refuse (over 50 characters)", () => {
    const long = "x".repeat(30);
    const story = new Story(makePlan([["api", []]]), {
      settings: { labelPrefix: "team-loom", stageLabels: true },
    });
    assert.deepEqual(answerLabels(story), ["team-loom:hold", "team-loom:skip:api", "team-loom:block:api"]);
    const longPrefix = new Story(makePlan([[long, []]]), {
      settings: { labelPrefix: "abcdefghijklmnopqrst", stageLabels: true },
    });
    assert.deepEqual(answerLabels(longPrefix), ["abcdefghijklmnopqrst:hold"]);
  });

  it("without stage_labels (the default) creates only the hold label, however many stages", () => {
    const story = new Story(
      makePlan([
        ["api", []],
        ["ui", ["api"]],
      ]),
    );
    assert.deepEqual(answerLabels(story), ["loom:hold"]);
    story.send({
      type: "plan.changed",
      plan: makePlan(
        [
          ["api", []],
          ["docs", []],
        ],
        "c".repeat(40),
      ),
    });
    assert.deepEqual(story.of("ensureLabel"), [], "a stage the plan adds gets none either");
  });

  it("creates nothing for a plan waiting for approval, and starts once it is approved", () => {
    const story = new Story(makePlan([["api", []]]), { trusted: false });
    assert.deepEqual(story.of("ensureLabel"), []);
    story.send({
      type: "command.received",
      command: "approve",
      sender: "alice",
      source: { kind: "comment", commentId: 1 },
    });
    assert.equal(story.of("ensureLabel")[0]?.label.name, "loom:hold");
  });

  it("records a label dealt with after the pull request closed, and asks for no more", () => {
    const story = new Story(makePlan([["api", []]]));
    story.send({ type: "plan.closed", merged: false });
    story.send({ type: "label.ensured", name: "loom:hold" });
    assert.deepEqual(story.state.labelsEnsured, ["loom:hold"]);
    assert.deepEqual(story.of("ensureLabel"), []);
    assert.deepEqual(story.state.rejected, []);
  });
});
