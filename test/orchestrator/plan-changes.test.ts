import { test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_SETTINGS } from "../../src/orchestrator/events.ts";
import type { PlanSpec } from "../../src/orchestrator/events.ts";
import { step } from "../../src/orchestrator/step.ts";
import { Story, makePlan } from "./story.ts";

function reopen(story: Story, plan: PlanSpec = story.state.plan): void {
  story.send({
    type: "plan.opened",
    plan,
    settings: story.state.settings,
    pr: story.state.pr,
    trusted: true,
    labels: story.state.labels,
  });
}

test("a stage listed twice in the plan file is one stage, run once", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["a", []],
      ["b", []],
    ]),
  );
  assert.deepEqual(story.state.order, ["a", "b"]);
  assert.deepEqual(story.dispatched(), ["a", "b"]);
});

test("a pull request holding several plans names its check runs with the plan id; a lone plan does not", () => {
  const opened = (sharedPull?: boolean) =>
    step(null, {
      type: "plan.opened",
      at: 1,
      plan: makePlan([["a", []]]),
      settings: DEFAULT_SETTINGS,
      pr: { number: 7, headRef: "feature", headSha: "h".repeat(40), baseRef: "main" },
      trusted: true,
      labels: [],
      ...(sharedPull === undefined ? {} : { sharedPull }),
    }).state;
  assert.equal(opened(true).checkNamesWithPlan, true);
  assert.equal(opened(false).checkNamesWithPlan, undefined);
  assert.equal(opened().checkNamesWithPlan, undefined);
});

test("a changed plan's notes say which stages were added, removed and brought back, once each", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", ["a"]],
    ]),
  );
  story.send({
    type: "plan.changed",
    plan: makePlan([
      ["b", []],
      ["c", []],
    ]),
  });
  assert.deepEqual(
    story
      .stage("c")
      .notes.map((n) => n.text)
      .slice(0, 1),
    ["added by a change to the plan file"],
  );
  assert.equal(story.stage("a").notes.at(-1)?.text, "removed from the plan file; kept for its history");
  story.send({
    type: "plan.changed",
    plan: makePlan([
      ["b", []],
      ["c", []],
      ["d", []],
    ]),
  });
  assert.equal(
    story.stage("a").notes.filter((n) => n.text.startsWith("removed from the plan file")).length,
    1,
    "a stage already removed is not noted again",
  );
  const bNotes = story.stage("b").notes.length;
  story.send({
    type: "plan.changed",
    plan: makePlan([
      ["a", []],
      ["b", []],
      ["c", []],
      ["d", []],
    ]),
  });
  assert.equal(story.stage("a").removed, false);
  assert.equal(story.stage("a").notes.at(-1)?.text, "back in the plan file");
  assert.equal(story.stage("b").notes.length, bNotes, "a stage that stayed gets no note");
});

test("stages that never ran are dropped when the plan file drops them, whether queued or waiting for dependencies", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", []],
      ["c", ["a"]],
    ]),
    { settings: { maxParallel: 1 } },
  );
  assert.equal(story.stage("b").status, "queued");
  assert.equal(story.stage("c").status, "waiting-for-deps");
  story.send({ type: "plan.changed", plan: makePlan([["a", []]]) });
  assert.deepEqual(story.state.order, ["a"]);
  assert.deepEqual(Object.keys(story.state.stages), ["a"]);
});

test("a stage that ran and waits in line again, or that a person skipped, keeps its history when dropped", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", []],
    ]),
    { labels: ["loom:skip:b"] },
  );
  story.run("a", "crashed");
  story.send({ type: "labels.changed", labels: ["loom:skip:b", "loom:hold"] });
  story.send({ type: "tick" }, 60_000);
  assert.equal(story.stage("a").status, "queued");
  assert.equal(story.stage("b").status, "skipped");
  story.send({ type: "plan.changed", plan: makePlan([["c", []]]) });
  assert.deepEqual(story.state.order, ["c", "a", "b"]);
  assert.equal(story.stage("a").removed, true);
  assert.equal(story.stage("b").removed, true);
});

test("a queued stage given dependencies that are not ready waits for them again", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", []],
      ["c", []],
    ]),
    { settings: { maxParallel: 1 } },
  );
  assert.equal(story.stage("b").status, "queued");
  story.send({
    type: "plan.changed",
    plan: makePlan([
      ["a", []],
      ["b", ["a"]],
      ["c", []],
    ]),
  });
  assert.equal(story.stage("b").status, "waiting-for-deps");
  assert.deepEqual(story.stage("b").dependencies, ["a"]);
  assert.equal(
    story.stage("b").notes.at(-1)?.text,
    "waiting again: the plan file gave it dependencies that are not ready",
  );
  assert.equal(story.stage("c").status, "queued", "a stage whose dependencies stay ready stays in line");
  assert.deepEqual(story.state.rejected, []);
  story.pass("a");
  assert.equal(story.stage("b").status, "queued", "in line again once its new dependency merged");
});

test("closing the pull request stops running stages with the reason; stages not running stay as they are", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", []],
      ["c", ["a"]],
    ]),
    { settings: { maxParallel: 1 } },
  );
  story.send({ type: "plan.closed", merged: true });
  assert.equal(story.stage("a").status, "blocked");
  assert.equal(story.stage("a").sessions[0]?.detail, "pull request merged");
  assert.equal(story.stage("a").notes.at(-1)?.text, "pull request merged: session cancelled");
  assert.equal(story.stage("b").status, "queued");
  assert.equal(story.stage("c").status, "waiting-for-deps");
  const closed = new Story(makePlan([["a", []]]));
  closed.send({ type: "plan.closed", merged: false });
  assert.equal(closed.stage("a").notes.at(-1)?.text, "pull request closed: session cancelled");
});

test("reopening brings back only what the close stopped: not stages a person blocked, nor ones removed from the plan", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", []],
      ["c", []],
    ]),
  );
  story.command("block", "b");
  story.send({ type: "plan.closed", merged: false });
  const plan = makePlan([
    ["a", []],
    ["b", []],
  ]);
  reopen(story, plan);
  assert.equal(story.stage("a").status, "executing");
  assert.match(
    story
      .stage("a")
      .notes.map((n) => n.text)
      .join("\n"),
    /pull request reopened/,
  );
  assert.equal(story.stage("b").status, "blocked");
  assert.equal(story.stage("c").status, "blocked");
  assert.equal(story.stage("c").removed, true);
  assert.deepEqual(story.dispatched(), ["a"]);
});

test("plan.opened again on an open pull request changes no stage: a pending retry keeps its backoff, a running stage runs on", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", []],
    ]),
  );
  story.run("a", "crashed");
  const retryAt = story.stage("a").retryAt;
  reopen(story);
  assert.equal(story.stage("a").status, "blocked");
  assert.equal(story.stage("a").retryAt, retryAt);
  assert.equal(story.stage("b").status, "executing");
  assert.deepEqual(story.dispatched(), []);
  assert.deepEqual(story.state.rejected, []);
});

test("a plan change leaves stages that are not queued where they are: a running stage given a new dependency runs on", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", []],
      ["c", ["a"]],
      ["d", []],
    ]),
    { settings: { maxParallel: 2 } },
  );
  assert.equal(story.stage("d").status, "queued");
  const notes = (id: string) => story.stage(id).notes.length;
  const before = { b: notes("b"), c: notes("c"), d: notes("d") };
  story.send({
    type: "plan.changed",
    plan: makePlan([
      ["a", []],
      ["b", ["a"]],
      ["c", ["a"]],
      ["d", []],
    ]),
  });
  assert.equal(story.stage("b").status, "executing");
  assert.equal(story.stage("c").status, "waiting-for-deps");
  assert.equal(story.stage("d").status, "queued");
  assert.deepEqual({ b: notes("b"), c: notes("c"), d: notes("d") }, before, "no stage got a note");
  assert.deepEqual(story.state.rejected, []);
});

test("a plan change loom's own commit brought (untrusted) drops an approval and the author's trust; a person's change keeps both", () => {
  const plan = makePlan([
    ["a", []],
    ["b", ["a"]],
  ]);
  const approved = new Story(plan, { trusted: false });
  approved.command("approve", undefined, approved.state.pr.headSha);
  assert.equal(approved.state.approvedSha, approved.state.pr.headSha);
  approved.send({ type: "plan.changed", plan: { ...plan, blobSha: "c".repeat(40) }, untrusted: true });
  assert.equal(approved.state.approvedSha, null, "the approval was of other plan text");
  assert.match(approved.state.distrusted ?? "", /changed in a commit loom made/);

  const trusted = new Story(plan);
  trusted.send({ type: "plan.changed", plan: { ...plan, blobSha: "d".repeat(40) } });
  assert.equal(trusted.state.trusted, true, "a person's change");
  assert.equal(trusted.state.distrusted, undefined);
  trusted.send({ type: "plan.changed", plan: { ...plan, blobSha: "e".repeat(40) }, untrusted: true });
  assert.equal(trusted.state.trusted, false);
  trusted.pass("a");
  assert.deepEqual(trusted.dispatched(), [], "b is not started without a person");
  assert.equal(trusted.stage("b").status, "queued");
  trusted.command("approve", undefined, trusted.state.pr.headSha);
  assert.deepEqual(trusted.dispatched(), ["b"], "a person's approval lets it go on");
});
