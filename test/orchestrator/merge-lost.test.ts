import assert from "node:assert/strict";
import { test } from "node:test";
import { Story, makePlan } from "./story.ts";

const FORCED = "f0rced00000000000000000000000000000000001";
const MERGE = "merge000000000000000000000000000000000001";

/** a and x are roots; b needs both. a is merged, then a force-push to the head drops its merge. */
function storyWithLostMerge(): Story {
  const story = new Story(
    makePlan([
      ["a", []],
      ["x", []],
      ["b", ["a", "x"]],
    ]),
  );
  story.pass("a");
  story.send({ type: "head.moved", headSha: FORCED, before: story.state.pr.headSha });
  return story;
}

test("a merged stage a force-push removed, with no checked commit to merge again, waits for a person and holds its dependents", () => {
  const story = storyWithLostMerge();
  story.send({ type: "merge.lost", stageId: "a", headSha: FORCED, sha: MERGE });
  const a = story.stage("a");
  assert.deepEqual([a.status, a.merged], ["merge-blocked", false]);
  assert.match(
    a.notes.at(-1)?.text ?? "",
    /feature\/demo at f0rced0 no longer contains merge00.*\/loom retry a/,
  );
  story.pass("x");
  assert.ok(!story.dispatched().includes("b"), "b waits: a's work is not in the pull request");
  assert.equal(story.stage("b").status, "waiting-for-deps");
});

test("a merge.lost about a head that has moved on again is ignored", () => {
  const story = storyWithLostMerge();
  story.send({ type: "head.moved", headSha: "later00000000000000000000000000000000001", before: FORCED });
  story.send({ type: "merge.lost", stageId: "a", headSha: FORCED, sha: MERGE });
  assert.deepEqual([story.stage("a").status, story.stage("a").merged], ["completed", true]);
  assert.match(story.state.rejected.at(-1)?.reason ?? "", /no longer the head/);
});
