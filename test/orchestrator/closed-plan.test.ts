import { test } from "node:test";
import assert from "node:assert/strict";
import { Story, makePlan } from "./story.ts";

const trio = makePlan([
  ["a", []],
  ["b", []],
  ["c", []],
]);

test("a closed plan still records what the app did for it, and ignores everything else with the reason", () => {
  const story = new Story(trio, { settings: { renamePlans: true } });
  story.send({ type: "plan.closed", merged: false });
  story.send({ type: "label.ensured", name: "loom:hold" });
  story.send({ type: "planFile.renameFailed", reason: "protected branch" });
  story.send({
    type: "planFile.renamed",
    path: "doc/plans/IN_PROGRESS-PLAN-demo.md",
    sha: "9".repeat(40),
    parent: "x",
  });
  assert.deepEqual(story.state.labelsEnsured, ["loom:hold"]);
  assert.equal(story.state.planFileProblem, "protected branch");
  assert.equal(story.state.planFile, "doc/plans/IN_PROGRESS-PLAN-demo.md");
  assert.equal(story.state.rejected.length, 0);
  story.send({ type: "labels.changed", labels: ["loom:hold"] });
  assert.equal(story.state.hold, false);
  assert.deepEqual(
    story.state.rejected.map((r) => r.reason),
    ["labels.changed ignored: the pull request is closed"],
  );
});

test("reopening takes the settings, trust and head the pull request has now", () => {
  const story = new Story(trio, { settings: { maxParallel: 1 } });
  story.send({ type: "plan.closed", merged: false });
  const head = "d".repeat(40);
  story.send({
    type: "plan.opened",
    plan: trio,
    settings: { ...story.state.settings, maxParallel: 3 },
    pr: { ...story.state.pr, headSha: head },
    trusted: true,
    labels: [],
  });
  assert.equal(story.state.pr.headSha, head);
  assert.deepEqual(story.dispatched(), ["a", "b", "c"], "three may run now");
  assert.ok(
    story.of("syncCheckRun").some((e) => e.stageId === null),
    "the plan's check run is written on the new head",
  );
});

test("reopened by someone loom no longer trusts, the plan waits for an approval", () => {
  const story = new Story(trio);
  story.send({ type: "plan.closed", merged: false });
  story.send({
    type: "plan.opened",
    plan: trio,
    settings: story.state.settings,
    pr: story.state.pr,
    trusted: false,
    labels: [],
  });
  assert.equal(story.state.trusted, false);
  assert.deepEqual(story.dispatched(), []);
});

test("reopened at a new head, a stage waiting for a person follows it; the labels and the fork are the pull request's now", () => {
  const pair = makePlan([
    ["a", []],
    ["b", []],
  ]);
  const reopen = (moved: boolean) => {
    const story = new Story(pair);
    story.command("block", "b");
    story.send({ type: "plan.closed", merged: false });
    const effects = story.send({
      type: "plan.opened",
      plan: pair,
      settings: story.state.settings,
      pr: moved ? { ...story.state.pr, headSha: "d".repeat(40) } : story.state.pr,
      trusted: true,
      labels: ["loom:hold"],
      fork: { repo: "mallory/widgets" },
    });
    const follows = effects.flatMap((e) =>
      e.type === "syncCheckRun" && e.follow === true && e.stageId !== null ? [e.stageId] : [],
    );
    return { story, follows };
  };
  const moved = reopen(true);
  assert.deepEqual(moved.follows, ["b"], "blocked b needs a person: its check run is shown on the new head");
  assert.equal(moved.story.state.hold, true, "loom:hold, put on while the pull request was closed, holds");
  assert.deepEqual(moved.story.dispatched(), []);
  assert.equal(moved.story.state.fork?.repo, "mallory/widgets");
  assert.deepEqual(reopen(false).follows, [], "reopened on the head it had: nothing to move");
});
