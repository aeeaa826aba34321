import { test } from "node:test";
import assert from "node:assert/strict";
import { makeDiamond } from "./diamond.ts";
import { Story } from "./story.ts";

const FORCED = "f0rced00000000000000000000000000000000001";

/** Runs `id` to completion with its checks on `checked-<id>` and merges it at `merge-<id>`. */
function passChecked(story: Story, id: string): void {
  const attempt = story.attemptOf(id);
  const runId = 100 * attempt + id.charCodeAt(0);
  story.send({ type: "run.dispatched", stageId: id, attempt, runId });
  story.send({
    type: "run.finished",
    stageId: id,
    attempt,
    runId,
    outcome: "completed",
    detail: "",
    headSha: `checked-${id}`.padEnd(40, "0"),
  });
  story.send({
    type: "merge.finished",
    stageId: id,
    outcome: "merged",
    sha: `merge-${id}`.padEnd(40, "0"),
    changedPaths: [`src/${id}.ts`],
    detail: "",
  });
}

/** a, b and c merged by loom; then a person force-pushes a head that keeps a's and c's merges but not b's. */
function forcePushDroppingB(): Story {
  const story = new Story(makeDiamond());
  for (const id of ["a", "b", "c"]) passChecked(story, id);
  assert.deepEqual(story.dispatched(), ["d"]);
  passChecked(story, "d");
  story.send({ type: "head.moved", headSha: FORCED, before: story.state.pr.headSha, changedPaths: [] });
  story.send({ type: "merge.lost", stageId: "b", headSha: FORCED, sha: story.stage("b").mergedSha ?? "" });
  return story;
}

test("a force-push that drops b's merge but keeps a's and c's: b is merged again by its checked SHA, d is affected, a and c are not touched", () => {
  const story = forcePushDroppingB();
  const [merge] = story.of("mergeBranch");
  assert.deepEqual([merge?.stageId, merge?.sha], ["b", "checked-b".padEnd(40, "0")]);
  assert.deepEqual(story.state.affected?.stages, [
    { id: "d", why: "it builds on `b`, whose merge the push dropped" },
  ]);
  for (const id of ["a", "c"]) {
    assert.equal(story.stage(id).merged, true);
    assert.equal(story.stage(id).sessions.length, 1);
  }
  story.send({ type: "merge.finished", stageId: "b", outcome: "merged", sha: "e".repeat(40), detail: "" });
  assert.equal(story.stage("b").merged, true);
  assert.equal(story.stage("b").mergeLost, undefined);
});

test("when the dropped stage's branch is gone it runs again from the current head, then merges", () => {
  const story = forcePushDroppingB();
  story.send({
    type: "merge.finished",
    stageId: "b",
    outcome: "branch-moved",
    branchGone: true,
    detail: "the stage branch loom/pr-7/PLAN-demo/b was deleted after the checks ran on checked",
  });
  assert.deepEqual(story.dispatched(), ["b"]);
  assert.equal(story.of("createBranch")[0]?.reset, true);
  assert.match(
    story.stage("b").sessions.at(-1)?.rerunWhy ?? "",
    /a push dropped its merge and its branch is gone/,
  );
  passChecked(story, "b");
  assert.equal(story.stage("b").merged, true);
  assert.deepEqual(story.dispatched(), [], "d waits in the affected set for a person");
});

test("a branch moved by a push (not gone) still waits for a person to review it", () => {
  const story = forcePushDroppingB();
  story.send({ type: "merge.finished", stageId: "b", outcome: "branch-moved", detail: "moved to 1234567" });
  assert.equal(story.stage("b").status, "merge-blocked");
  assert.deepEqual(story.dispatched(), []);
});
