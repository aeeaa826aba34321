import { test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_SETTINGS } from "../../src/orchestrator/events.ts";
import { step } from "../../src/orchestrator/step.ts";
import { KEY, Story, makePlan } from "./story.ts";

const heartbeat = {
  timestamp: 0,
  contextPercent: 40,
  lastTool: "Bash",
  activity: "tests",
  turns: 9,
  costUsd: 0.5,
};

test("a heartbeat updates only that stage's check run; a status change also updates the plan check run and the comment", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", []],
    ]),
  );
  story.send({ type: "heartbeat.seen", stageId: "a", attempt: 1, heartbeat });
  assert.deepEqual(story.effects, [{ type: "syncCheckRun", key: `${KEY}:a:check`, stageId: "a" }]);
  assert.equal(story.stage("a").sessions[0]?.lastHeartbeat?.contextPercent, 40);
  story.run("b", "completed");
  assert.deepEqual(
    story.effects.filter((e) => e.type.startsWith("sync")),
    [
      { type: "syncCheckRun", key: `${KEY}:b:check`, stageId: "b" },
      // b passed: its merge will move the head, so the plan's run waits to move once.
      { type: "syncCheckRun", key: `${KEY}:@plan:check`, stageId: null, follow: true },
      { type: "syncStatusComment", key: `${KEY}:@plan:status-comment` },
    ],
  );
});

test("a crashing merge session is retried with backoff and ends merge-blocked after the last attempt", () => {
  const story = new Story(makePlan([["a", []]]), { settings: { maxAttempts: 2 } });
  story.run("a", "completed");
  story.merge("a", "conflict");
  story.run("a", "crashed");
  assert.equal(story.stage("a").status, "merge-conflict");
  assert.equal(story.stage("a").retryAt, story.at + 30_000);
  story.send({ type: "tick" }, 30_000);
  assert.equal(story.of("dispatchRun")[0]?.kind, "merge");
  story.run("a", "crashed");
  assert.equal(story.stage("a").status, "merge-blocked");
  story.command("retry", "a");
  assert.equal(story.of("mergeBranch").length, 1, "retrying a merge-blocked stage tries the merge again");
});

test("commands on a closed pull request get a refusal reply and change nothing", () => {
  const story = new Story(makePlan([["a", []]]));
  story.send({ type: "plan.closed", merged: false });
  story.command("retry", "a");
  assert.equal(story.of("reply")[0]?.reaction, "-1");
  assert.match(story.of("reply")[0]?.body ?? "", /closed/);
  assert.deepEqual(story.dispatched(), []);
});

test("reopening a closed pull request puts the stages stopped by the close back in line", () => {
  const story = new Story(makePlan([["a", []]]));
  const opened = story.state;
  story.send({ type: "plan.closed", merged: false });
  assert.equal(story.stage("a").status, "blocked");
  story.send({
    type: "plan.opened",
    plan: opened.plan,
    settings: opened.settings,
    pr: opened.pr,
    trusted: true,
    labels: [],
  });
  assert.equal(story.state.closed, false);
  assert.deepEqual(story.dispatched(), ["a"]);
  assert.equal(story.of("dispatchRun")[0]?.attempt, 2);
});

test("labels follow the configured prefix", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", []],
    ]),
    { settings: { labelPrefix: "ci", maxParallel: 1 } },
  );
  story.send({ type: "labels.changed", labels: ["ci:block:b", "loom:hold"] });
  assert.equal(story.state.hold, false, "loom:hold is not ours under the ci prefix");
  assert.equal(story.stage("b").status, "blocked");
  story.send({ type: "labels.changed", labels: ["ci:hold", "ci:nope:b", "ci:skip:ghost"] });
  assert.equal(story.state.hold, true);
  assert.equal(story.stage("b").status, "queued");
  assert.match(story.state.rejected.at(-1)?.reason ?? "", /ci:skip:ghost names no stage/);
});

test("a run cancelled before loom knew its id is cancelled once the id arrives", () => {
  const story = new Story(makePlan([["a", []]]));
  story.command("cancel", "a");
  assert.deepEqual(story.of("cancelRun"), [], "no run id yet");
  story.send({ type: "run.dispatched", stageId: "a", attempt: 1, runId: 31 });
  assert.deepEqual(story.of("cancelRun"), [
    { type: "cancelRun", key: `${KEY}:a:1:cancel`, stageId: "a", runId: 31 },
  ]);
});

test("step without a state accepts only plan.opened", () => {
  assert.throws(() => step(null, { type: "tick", at: 1 }), { name: "MissingPlanStateError" });
  const { state } = step(null, {
    type: "plan.opened",
    at: 1,
    plan: makePlan([]),
    settings: DEFAULT_SETTINGS,
    pr: { number: 1, headRef: "h", headSha: "s", baseRef: "main" },
    trusted: true,
    labels: [],
  });
  assert.deepEqual(state.order, []);
});

test("the same heartbeat read twice is no sign of life: the session still hangs on time", () => {
  const story = new Story(makePlan([["a", []]]));
  const beat = { ...heartbeat, timestamp: 5 };
  story.send({ type: "heartbeat.seen", stageId: "a", attempt: 1, heartbeat: beat }, 1000);
  const seen = story.stage("a").sessions[0]?.lastSeenAt;
  story.send({ type: "heartbeat.seen", stageId: "a", attempt: 1, heartbeat: beat }, 250_000);
  assert.equal(story.stage("a").sessions[0]?.lastSeenAt, seen);
  story.send({ type: "tick" }, 60_000);
  assert.equal(story.stage("a").sessions[0]?.status, "hung");
});

test("a created check run is recorded per check, changes nothing else, and is recorded after the pull request closed too", () => {
  const story = new Story(makePlan([["a", []]]));
  story.send({ type: "checkRun.created", stageId: "a", headSha: "h1", checkRunId: 5 });
  assert.deepEqual(story.effects, []);
  story.send({ type: "checkRun.created", stageId: null, headSha: "h1", checkRunId: 6 });
  story.send({ type: "plan.closed", merged: false });
  story.send({ type: "checkRun.created", stageId: "a", headSha: "h2", checkRunId: 7 });
  assert.deepEqual(story.state.checkRuns, { a: { headSha: "h2", id: 7 }, "@plan": { headSha: "h1", id: 6 } });
  assert.equal(story.state.rejected.length, 0);
  const legacy = step(
    { ...story.state, checkRuns: undefined },
    {
      type: "checkRun.created",
      at: 0,
      stageId: "a",
      headSha: "h3",
      checkRunId: 8,
    },
  );
  assert.equal(legacy.state.checkRuns, undefined, "a state from before the record keeps looking its runs up");
});
