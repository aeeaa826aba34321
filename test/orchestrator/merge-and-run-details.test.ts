import { test } from "node:test";
import assert from "node:assert/strict";
import { KEY, Story, makePlan } from "./story.ts";

const CHECKED = "c".repeat(40);
const pair = makePlan([
  ["a", []],
  ["b", ["a"]],
]);

/** Stage `id` runs and completes on `CHECKED`, the commit its checks ran on. */
function completeOnChecked(story: Story, id: string): void {
  const attempt = story.attemptOf(id);
  story.send({ type: "run.dispatched", stageId: id, attempt, runId: 500 + attempt });
  story.send({
    type: "run.finished",
    stageId: id,
    attempt,
    runId: 500 + attempt,
    outcome: "completed",
    detail: "",
    headSha: CHECKED,
  });
}

test("a completed stage merges exactly the commit its checks ran on, named in the merge commit message", () => {
  const story = new Story(pair);
  completeOnChecked(story, "a");
  assert.deepEqual(story.of("mergeBranch"), [
    {
      type: "mergeBranch",
      key: `${KEY}:a:1:merge:1`,
      stageId: "a",
      head: "loom/pr-7/PLAN-demo/a",
      base: "feature/demo",
      message: `loom: merge stage a (Stage a) of PLAN-demo\n\nStage branch loom/pr-7/PLAN-demo/a at ${CHECKED} (checked)`,
      sha: CHECKED,
    },
  ]);
});

test("a stage branch pushed after its checks is not merged; /loom retry runs the stage again on it", () => {
  const story = new Story(pair);
  completeOnChecked(story, "a");
  story.send({ type: "merge.finished", stageId: "a", outcome: "branch-moved", detail: "the branch moved" });
  assert.equal(story.stage("a").status, "merge-blocked");
  assert.equal(story.stage("a").checkedSha, null);
  assert.equal(
    story.stage("a").notes.at(-1)?.text,
    "not merged: the branch moved; review that push, then `/loom retry a` runs the stage again on it",
  );
  assert.deepEqual(story.dispatched(), [], "b waits");
  story.command("retry", "a");
  assert.equal(story.of("reply")[0]?.reaction, "+1");
  assert.deepEqual(story.of("mergeBranch"), [], "the unchecked commit is not merged");
  assert.deepEqual(
    story.of("dispatchRun").map((d) => [d.stageId, d.attempt, d.kind]),
    [["a", 2, "stage"]],
  );
});

test("a merged stage a force-push removed is merged again from the commit its checks ran on", () => {
  const story = new Story(pair);
  completeOnChecked(story, "a");
  story.merge("a");
  assert.equal(story.stage("a").mergedSha, CHECKED);
  story.send({
    type: "merge.lost",
    stageId: "a",
    headSha: story.state.pr.headSha,
    sha: CHECKED,
  });
  assert.equal(story.stage("a").merged, false);
  assert.equal(story.stage("a").mergedSha, undefined);
  assert.equal(story.stage("a").status, "completed");
  assert.match(
    story.stage("a").notes.at(-2)?.text ?? "",
    /no longer contains c{7} .*; merging the stage again$/,
  );
  assert.deepEqual(
    story.of("mergeBranch").map((m) => [m.key, m.sha]),
    [[`${KEY}:a:1:merge:2`, CHECKED]],
  );
});

test("merge answers loom cannot place are recorded with what was wrong", () => {
  const story = new Story(pair);
  story.send({ type: "merge.finished", stageId: "ghost", outcome: "merged", detail: "" });
  story.pass("a");
  story.merge("a");
  story.send({ type: "merge.lost", stageId: "b", headSha: story.state.pr.headSha, sha: CHECKED });
  assert.deepEqual(
    story.state.rejected.map((r) => [r.stageId, r.reason]),
    [
      ["ghost", "merge.finished for an unknown stage"],
      ["a", "merge.finished (merged) while the stage is completed, merged"],
      ["b", "merge.lost for a stage that is not merged"],
    ],
  );
});

test("events from a run other than the one loom recorded, and heartbeats after the end, are recorded and change nothing", () => {
  const story = new Story(pair);
  story.send({ type: "run.dispatched", stageId: "a", attempt: 1, runId: 1 });
  story.send({ type: "run.started", stageId: "a", attempt: 1, runId: 2 });
  assert.equal(story.stage("a").sessions[0]?.status, "spawning");
  story.send({ type: "run.finished", stageId: "a", attempt: 1, runId: 1, outcome: "completed", detail: "" });
  story.send({
    type: "heartbeat.seen",
    stageId: "a",
    attempt: 1,
    heartbeat: {
      timestamp: story.at,
      contextPercent: 1,
      lastTool: null,
      activity: null,
      turns: 1,
      costUsd: 0,
    },
  });
  assert.deepEqual(
    story.state.rejected.map((r) => r.reason),
    [
      "run.started from run 2, not run 1 loom recorded for attempt 1",
      "heartbeat for attempt 1, which is already completed",
    ],
  );
});

test("a run cancelled on GitHub blocks its stage until a person retries it", () => {
  const story = new Story(pair);
  story.run("a", "cancelled");
  assert.equal(story.stage("a").status, "blocked");
  assert.equal(story.stage("a").blockedBy, "command");
  assert.equal(story.stage("a").retryAt, null);
  assert.equal(
    story.stage("a").notes.at(-1)?.text,
    "attempt 1: run cancelled on GitHub; `/loom retry` to run again",
  );
  story.send({ type: "tick" }, 3_600_000);
  assert.deepEqual(story.dispatched(), []);
  story.command("retry", "a");
  assert.deepEqual(story.dispatched(), ["a"]);
});

test("a pending retry of a stage removed from the plan file is dropped when it falls due", () => {
  const story = new Story(pair);
  story.run("a", "crashed");
  story.send({ type: "plan.changed", plan: makePlan([["b", []]]) });
  story.send({ type: "tick" }, 60_000);
  assert.equal(story.stage("a").retryAt, null);
  assert.equal(story.stage("a").status, "blocked");
  assert.equal(
    story.stage("a").notes.at(-1)?.text,
    "retry dropped: the stage was removed from the plan file",
  );
  assert.deepEqual(story.dispatched(), []);
});

test("/loom retry on a conflict whose merge session failed starts a new merge session at once; while one runs it is refused", () => {
  const story = new Story(makePlan([["a", []]]), { settings: { maxAttempts: 5 } });
  story.run("a", "completed");
  story.merge("a", "conflict");
  story.command("retry", "a");
  assert.deepEqual(
    story.of("reply").map((r) => [r.reaction, r.body]),
    [["-1", "loom could not retry `a`: a merge session for `a` is running already"]],
  );
  story.run("a", "crashed");
  assert.equal(story.stage("a").status, "merge-conflict");
  assert.notEqual(story.stage("a").retryAt, null);
  story.command("retry", "a");
  assert.equal(story.of("reply")[0]?.reaction, "+1");
  assert.equal(story.stage("a").retryAt, null);
  assert.equal(story.stage("a").failures, 0);
  assert.deepEqual(
    story.of("dispatchRun").map((d) => [d.stageId, d.kind]),
    [["a", "merge"]],
  );
});

test("/loom retry on a stage being merged or skipped says why not", () => {
  const story = new Story(pair);
  story.run("a", "completed");
  story.command("retry", "a");
  assert.equal(story.of("reply")[0]?.body, "loom could not retry `a`: `a` is completed and being merged");
  story.command("skip", "b");
  story.command("retry", "b");
  assert.equal(story.of("reply")[0]?.body, "loom could not retry `b`: `b` is skipped already");
});

test("re-running the check suite takes up a conflict whose merge session failed, not one whose session runs", () => {
  const rerun = (story: Story) =>
    story.send({
      type: "command.received",
      command: "retry",
      sender: "octocat",
      source: { kind: "check-suite-rerequest", checkSuiteId: 3 },
    });
  const running = new Story(makePlan([["a", []]]));
  running.run("a", "completed");
  running.merge("a", "conflict");
  rerun(running);
  assert.equal(running.of("reply")[0]?.reaction, "-1");
  const failed = new Story(makePlan([["a", []]]), { settings: { maxAttempts: 5 } });
  failed.run("a", "completed");
  failed.merge("a", "conflict");
  failed.run("a", "crashed");
  rerun(failed);
  assert.equal(failed.of("reply")[0]?.reaction, "+1");
  assert.deepEqual(
    failed.of("dispatchRun").map((d) => d.kind),
    ["merge"],
  );
});

test("a merge answer is noted with where the work went; nothing new to merge still counts as merged", () => {
  const story = new Story(pair);
  story.run("a", "completed");
  story.merge("a");
  assert.equal(story.stage("a").notes.at(-1)?.text, "merged into feature/demo at merge00");
  assert.equal(story.stage("a").mergedSha, "merge000000000000000000000000000000000001");
  const empty = new Story(pair);
  empty.run("a", "completed");
  empty.merge("a", "nothing-to-merge");
  assert.equal(empty.stage("a").merged, true);
  assert.equal(empty.stage("a").mergedSha, undefined, "no commit to look for in the head");
  assert.equal(empty.stage("a").notes.at(-1)?.text, "merged: nothing new to merge");
  assert.deepEqual(empty.dispatched(), ["b"]);
});

test("a queued stage whose dependency lost its merge does not start when a slot frees up", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["c", []],
      ["b", ["a"]],
    ]),
    { settings: { maxParallel: 1 } },
  );
  story.run("a", "completed");
  assert.deepEqual(story.dispatched(), ["c"]);
  story.merge("a");
  assert.equal(story.stage("b").status, "queued");
  story.send({ type: "merge.lost", stageId: "a", headSha: story.state.pr.headSha, sha: "merge00" });
  assert.equal(story.stage("a").status, "merge-blocked");
  story.run("c", "completed");
  assert.deepEqual(story.dispatched(), []);
  assert.equal(story.stage("b").status, "queued");
});
