import { test } from "node:test";
import assert from "node:assert/strict";
import { costReport } from "./cost-report.ts";
import { KEY, Story, makePlan } from "./story.ts";

const trio = makePlan([
  ["a", []],
  ["b", []],
  ["c", ["a"]],
]);

/** The stage ids whose check runs the latest step asks to write (`null`: the plan's). */
const synced = (story: Story) => story.of("syncCheckRun").map((e) => e.stageId);

/** The App created the stage's check run on the story's head (as it records every run it creates). */
function created(story: Story, stageId: string, checkRunId: number): void {
  story.send({ type: "checkRun.created", stageId, headSha: story.state.pr.headSha, checkRunId });
}

test("when the head moves, the check runs of stuck stages follow it; running, waiting and merged ones stay", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", []],
      ["c", []],
      ["d", ["a"]],
    ]),
    { settings: { maxParallel: 3 } },
  );
  for (const [i, id] of ["a", "b", "c"].entries()) created(story, id, 10 + i);
  story.pass("a");
  story.run("b", "completed-with-failures", "failed");
  created(story, "d", 13);
  story.send({ type: "head.moved", headSha: "9".repeat(40), before: story.state.pr.headSha });
  assert.deepEqual(synced(story), ["b", null], "b needs a person; c runs, d waits for a slot, a is merged");
  assert.deepEqual(story.of("syncStatusComment"), [
    { type: "syncStatusComment", key: `${KEY}:@plan:status-comment` },
  ]);
});

test("a plan stored before loom recorded its check runs keeps writing a waiting stage's run (whether one exists is unknown)", () => {
  const fresh = new Story(trio, { settings: { maxParallel: 1 } });
  fresh.run("a", "crashed");
  assert.deepEqual(synced(fresh), ["b", null], "a waits for its retry with no run recorded: none is made");
  const legacy = new Story(trio, { settings: { maxParallel: 1 } });
  delete legacy.state.checkRuns;
  legacy.run("a", "crashed");
  assert.deepEqual(synced(legacy), ["a", "b", null]);
});

test("the stage the budget holds back gets its check run though it never started: a person must act on it", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", ["a"]],
      ["c", ["b"]],
    ]),
    { settings: { planBudgetUsd: 3 } },
  );
  created(story, "a", 10);
  story.pass("a", costReport(2));
  assert.equal(story.state.budgetWait?.stageId, "b", "b at $2 more would pass the $3 budget");
  assert.ok(synced(story).includes("b"), "b's run says why it waits");
  assert.ok(!synced(story).includes("c"), "c waits for b: no run");
});

test("closing the pull request writes every stage's check run there is, changed or not; a stage that never had one gets none", () => {
  const story = new Story(trio, { settings: { maxParallel: 1 } });
  created(story, "a", 10);
  story.send({ type: "plan.closed", merged: false });
  assert.deepEqual(synced(story), ["a", null], "b and c never started");
});

test("a stage waiting its turn gets no check run; it gets one when it starts, and keeps it while it waits for a retry", () => {
  const story = new Story(trio, { settings: { maxParallel: 1 } });
  assert.deepEqual(synced(story), ["a", null], "a starts; b waits for a slot, c for a");
  created(story, "a", 10);
  story.run("a", "crashed");
  assert.deepEqual(synced(story), ["a", "b", null], "a waits for its retry, with its run; b starts");
  story.pass("b");
  assert.ok(!synced(story).includes("c"), "c still waits for a");
});

test("a stage dropped from the plan file gets its check run written once more", () => {
  const story = new Story(trio, { settings: { maxParallel: 1 } });
  story.send({ type: "plan.changed", plan: makePlan([["a", []]]) });
  assert.deepEqual(synced(story), ["b", "c", null]);
});

test("the status comment follows what it shows: the plan's name, the hold label and a raised budget", () => {
  const story = new Story(trio, { settings: { planBudgetUsd: 10 } });
  story.send({ type: "plan.changed", plan: { ...trio, name: "Renamed demo" } });
  assert.equal(story.of("syncStatusComment").length, 1, "a new name");
  story.send({ type: "labels.changed", labels: ["loom:hold"] });
  assert.equal(story.of("syncStatusComment").length, 1, "the hold label");
  assert.deepEqual(synced(story), [null], "no stage changed");
  story.send({
    type: "command.received",
    command: "budget",
    amountUsd: 5,
    sender: "octocat",
    source: { kind: "comment", commentId: 1 },
  });
  assert.equal(story.of("syncStatusComment").length, 1, "a raised budget");
  story.send({ type: "labels.changed", labels: ["loom:hold", "bug"] });
  assert.deepEqual(story.of("syncStatusComment"), [], "nothing it shows changed");
});

test("a stage's check run is written when its retry time or its removal change", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", ["a"]],
    ]),
  );
  created(story, "a", 10);
  story.run("a", "crashed");
  assert.deepEqual(synced(story), ["a", null]);
  story.command("cancel", "a");
  assert.deepEqual(synced(story), ["a", null], "the retry was cancelled");
  story.send({ type: "plan.changed", plan: makePlan([["b", []]]) });
  assert.deepEqual(synced(story), ["b", "a", null], "a is removed, b may start");
});

test("events that neither move the head nor change the overview write no plan check run and no comment", () => {
  const story = new Story(trio, { settings: { maxParallel: 1 } });
  const heartbeat = { timestamp: 1, contextPercent: 1, lastTool: null, activity: null, turns: 1, costUsd: 0 };
  const quiet: Parameters<Story["send"]>[0][] = [
    { type: "run.dispatched", stageId: "a", attempt: 1, runId: 1 },
    { type: "run.started", stageId: "a", attempt: 1, runId: 1 },
    { type: "heartbeat.seen", stageId: "a", attempt: 1, heartbeat },
    { type: "tick" },
    { type: "checkRun.created", stageId: "a", headSha: story.state.pr.headSha, checkRunId: 5 },
    { type: "label.ensured", name: "loom:hold" },
    { type: "labels.changed", labels: ["bug"] },
    { type: "planFile.renameFailed", reason: "protected" },
    { type: "merge.lost", stageId: "a", headSha: story.state.pr.headSha, sha: "x" },
    { type: "target.synced", sha: "x", outcome: "synced", detail: "" },
    {
      type: "command.refused",
      sender: "mallory",
      source: { kind: "comment", commentId: 1 },
      reason: "no write access",
    },
  ];
  for (const event of quiet) {
    story.send(event);
    assert.deepEqual(
      story.effects.filter(
        (e) => e.type === "syncStatusComment" || (e.type === "syncCheckRun" && e.stageId === null),
      ),
      [],
      event.type,
    );
  }
});

test("a stage sync written only because the head moved, and the plan's sync on a head move, are marked follow (the App coalesces those); one with news of the stage is not", () => {
  const story = new Story(trio, { settings: { maxParallel: 3 } });
  created(story, "a", 10);
  created(story, "b", 11);
  story.run("a", "completed-with-failures", "failed");
  story.send({ type: "run.dispatched", stageId: "b", attempt: 1, runId: 12 });
  story.send({ type: "head.moved", headSha: "9".repeat(40), before: story.state.pr.headSha });
  const follows = (s: Story) =>
    s.of("syncCheckRun").map((e) => [e.stageId, e.type === "syncCheckRun" && e.follow === true]);
  assert.deepEqual(follows(story), [
    ["a", true],
    [null, true],
  ]);
  // News of the stage (a retry) is written at once, never as a follow.
  story.command("retry", "a");
  assert.ok(
    !story
      .of("syncCheckRun")
      .some((e) => e.type === "syncCheckRun" && e.follow === true && e.stageId === "a"),
  );
  // So is the plan's when the overview changed without a head move.
  assert.deepEqual(follows(story).at(-1), [null, false]);
  // A running stage's news after the head moved is written too (the App moves its run to the head).
  story.send({ type: "run.started", stageId: "b", attempt: 1, runId: 12 });
  assert.deepEqual(synced(story), ["b"]);
});

test("the plan's sync waits (follow) while its next write moves it to another head: a passed stage's merge on its way, or its run recorded on another head; otherwise it is written at once", () => {
  const story = new Story(trio, { settings: { maxParallel: 2 } });
  const planSync = () => story.of("syncCheckRun").find((e) => e.stageId === null);
  story.send({ type: "checkRun.created", stageId: null, headSha: story.state.pr.headSha, checkRunId: 1 });
  story.send({ type: "run.dispatched", stageId: "a", attempt: 1, runId: 1001 });
  assert.equal(planSync()?.follow, undefined, "a dispatch on the head the plan's run is on: at once");
  story.send({ type: "run.started", stageId: "a", attempt: 1, runId: 1001 });
  story.send({
    type: "run.finished",
    stageId: "a",
    attempt: 1,
    runId: 1001,
    outcome: "completed",
    detail: "",
  });
  assert.equal(story.stage("a").merged, false);
  assert.equal(planSync()?.follow, true, "a passed, its merge will move the head: the plan's run waits");
  story.send({
    type: "merge.finished",
    stageId: "a",
    outcome: "merged",
    sha: "merge000000000000000000000000000000000001",
    parent: story.state.pr.headSha,
    detail: "",
  });
  assert.equal(story.state.pr.headSha, "merge000000000000000000000000000000000001");
  assert.equal(planSync()?.follow, true, "the merge moved the head");
  story.command("status");
  assert.equal(
    story.of("syncCheckRun").find((e) => e.stageId === null),
    undefined,
    "nothing of the overview changed",
  );
  story.run("b", "crashed");
  assert.equal(
    planSync()?.follow,
    true,
    "the plan's run is still on the old head: it moves when it is written",
  );
  story.send({ type: "checkRun.created", stageId: null, headSha: story.state.pr.headSha, checkRunId: 2 });
  story.command("skip", "b");
  assert.equal(story.stage("b").status, "skipped");
  const atOnce = planSync();
  assert.ok(atOnce, "b skipped: the overview changed");
  assert.equal(atOnce.follow, undefined, "the run is on the head and no merge is on its way: at once");
});

test("the plan's last write, once every stage is done, is not held: its green shows at once", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", ["a"]],
    ]),
  );
  const mergeMovingHead = (id: string, sha: string) =>
    story.send({
      type: "merge.finished",
      stageId: id,
      outcome: "merged",
      sha,
      parent: story.state.pr.headSha,
      detail: "",
    });
  story.run("a", "completed");
  mergeMovingHead("a", "merge000000000000000000000000000000000001");
  assert.equal(story.of("syncCheckRun").find((e) => e.stageId === null)?.follow, true, "b is still to come");
  story.run("b", "completed");
  mergeMovingHead("b", "merge000000000000000000000000000000000002");
  const last = story.of("syncCheckRun").find((e) => e.stageId === null);
  assert.ok(last, "the plan's run is written");
  assert.equal(last.follow, undefined);
});

test("a push that takes an approval back writes the plan's check run only: a stage that needs a person does not follow an unapproved head", () => {
  const story = new Story(trio, { trusted: false, settings: { maxParallel: 2 } });
  story.command("approve", undefined, story.state.pr.headSha);
  assert.equal(story.state.approvedSha, story.state.pr.headSha);
  created(story, "a", 10);
  created(story, "b", 11);
  story.run("a", "completed-with-failures", "failed");
  assert.equal(story.stage("a").status, "completed-with-failures", "a needs a person");
  story.send({ type: "head.moved", headSha: "9".repeat(40), before: story.state.pr.headSha });
  assert.notEqual(story.state.approvedSha, story.state.pr.headSha, "the new head is not approved");
  assert.deepEqual(synced(story), [null], "an unapproved head costs the plan's check run, not a stage's");
});
