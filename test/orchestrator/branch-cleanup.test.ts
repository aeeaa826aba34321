import assert from "node:assert/strict";
import { test } from "node:test";
import { costReport } from "./cost-report.ts";
import { KEY, Story, makePlan } from "./story.ts";

const diamond = makePlan([
  ["a", []],
  ["b", ["a"]],
  ["c", ["a"]],
  ["d", ["b", "c"]],
]);

test("with delete_branches, the stage branches are deleted once, when the last stage is merged", () => {
  const story = new Story(diamond, { settings: { deleteBranches: true } });
  story.pass("a");
  assert.deepEqual(story.of("deleteBranch"), [], "nothing is deleted while stages are still running");
  story.pass("b");
  story.pass("c");
  story.run("d", "completed");
  assert.deepEqual(story.of("deleteBranch"), [], "d is completed but not merged yet");
  story.merge("d");
  assert.deepEqual(
    story.of("deleteBranch").map((e) => [e.key, e.branch]),
    ["a", "b", "c", "d"].map((id) => [`${KEY}:${id}:delete-branch`, `loom/pr-7/PLAN-demo/${id}`]),
  );
  story.send({ type: "tick" });
  assert.deepEqual(story.of("deleteBranch"), [], "a later event deletes nothing again");
});

test("a skipped stage that never ran has no branch to delete; a skip completes the plan", () => {
  const story = new Story(diamond, { settings: { deleteBranches: true }, labels: ["loom:skip:c"] });
  story.pass("a");
  story.pass("b");
  story.pass("d");
  assert.deepEqual(
    story.of("deleteBranch").map((e) => e.branch),
    ["loom/pr-7/PLAN-demo/a", "loom/pr-7/PLAN-demo/b", "loom/pr-7/PLAN-demo/d"],
  );
});

test("without delete_branches, or for a closed unfinished plan, branches are kept", () => {
  const kept = new Story(diamond);
  for (const id of ["a", "b", "c", "d"]) kept.pass(id);
  assert.deepEqual(kept.of("deleteBranch"), []);

  const closed = new Story(diamond, { settings: { deleteBranches: true } });
  closed.pass("a");
  closed.send({ type: "plan.closed", merged: false });
  assert.deepEqual(closed.of("deleteBranch"), []);
});

test("a stage removed from the plan file before it finished does not keep the plan from being done", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", []],
    ]),
    { settings: { deleteBranches: true } },
  );
  story.run("a", "crashed");
  story.send({ type: "plan.changed", plan: makePlan([["b", []]]) });
  story.pass("b");
  assert.deepEqual(
    story.of("deleteBranch").map((e) => e.branch),
    ["loom/pr-7/PLAN-demo/a", "loom/pr-7/PLAN-demo/b"],
  );
});

test("with delete_branches, a step before the plan is done asks only for its own effects", () => {
  const story = new Story(makePlan([["a", []]]), { settings: { deleteBranches: true } });
  story.send({ type: "run.dispatched", stageId: "a", attempt: 1, runId: 1 });
  assert.deepEqual(story.effects, [{ type: "syncCheckRun", key: `${KEY}:a:check`, stageId: "a" }]);
});

test("a plan whose every stage is skipped by label from the start is done with no branch to delete", () => {
  const story = new Story(makePlan([["a", []]]), {
    settings: { deleteBranches: true },
    labels: ["loom:skip:a"],
  });
  assert.equal(story.stage("a").status, "skipped");
  assert.deepEqual(story.of("deleteBranch"), []);
});

test("a continued stage's /loom continue record is deleted with its branch", () => {
  const story = new Story(diamond, { settings: { deleteBranches: true } });
  story.pass("a");
  story.pass("b");
  story.pass("c");
  story.send({
    type: "command.received",
    command: "continue",
    stageId: "c",
    instructions: "also handle the empty case",
    sender: "octocat",
    source: { kind: "comment", commentId: 9 },
  });
  story.pass("c");
  story.pass("d");
  assert.deepEqual(
    story.of("deleteBranch").map((e) => [e.branch, e.continueRecord === true]),
    ["a", "b", "c", "d"].map((id) => [`loom/pr-7/PLAN-demo/${id}`, id === "c"]),
  );
});

test("a stage continued after the plan was done loses its branch and record again when the plan is done again", () => {
  const story = new Story(diamond, { settings: { deleteBranches: true } });
  for (const id of ["a", "b", "c", "d"]) story.pass(id);
  assert.equal(story.of("deleteBranch").length, 4);
  story.send({
    type: "command.received",
    command: "continue",
    stageId: "b",
    instructions: "rename the helper",
    sender: "octocat",
    source: { kind: "comment", commentId: 10 },
  });
  story.pass("b");
  const again = story.of("deleteBranch").filter((e) => e.branch.endsWith("/b"));
  assert.deepEqual(
    again.map((e) => [e.key, e.continueRecord]),
    [[`${KEY}:b:delete-branch:2`, true]],
    "a key the first clean-up did not use, so the outbox runs it",
  );
});

test("an amended stage's /loom amend record is deleted with its branch", () => {
  const story = new Story(
    { ...diamond, stages: diamond.stages.map((s) => (s.id === "b" ? { ...s, acceptanceCount: 1 } : s)) },
    { settings: { deleteBranches: true } },
  );
  story.pass("a");
  const checked = "c0ffee0000000000000000000000000000000001";
  const dispute = { criterionIndex: 0, criterion: "npm test", reason: "needs a database" };
  const report = { ...costReport(0), dispute };
  story.send({ type: "run.dispatched", stageId: "b", attempt: 1, runId: 71 });
  story.send({
    type: "run.finished",
    stageId: "b",
    attempt: 1,
    runId: 71,
    outcome: "completed-with-failures",
    detail: "1 of 1 checks failed",
    headSha: checked,
    report,
  });
  story.send({
    type: "command.received",
    command: "amend",
    stageId: "b",
    criterion: 1,
    amendedCommand: "true",
    writtenAt: story.at + 500,
    sender: "octocat",
    source: { kind: "comment", commentId: 11 },
  });
  story.pass("b");
  story.pass("c");
  story.pass("d");
  assert.deepEqual(
    story.of("deleteBranch").map((e) => [e.branch, e.amendRecord === true]),
    ["a", "b", "c", "d"].map((id) => [`loom/pr-7/PLAN-demo/${id}`, id === "b"]),
  );
});
