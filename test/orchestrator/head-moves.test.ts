import { test } from "node:test";
import assert from "node:assert/strict";
import { Story, makePlan } from "./story.ts";

const sha = (i: number) => i.toString(16).padStart(40, "a");

/** An approved untrusted plan of 21 stages, each completed and merged by loom at `sha(i)`. */
function mergedTwentyOne(): { story: Story; approved: string } {
  const ids = Array.from({ length: 21 }, (_, i) => `s${i}`);
  const story = new Story(makePlan(ids.map((id) => [id, []])), {
    trusted: false,
    settings: { maxParallel: 21 },
  });
  const approved = story.state.pr.headSha;
  story.command("approve", undefined, approved);
  ids.forEach((id, i) => {
    story.run(id, "completed");
    story.send({ type: "merge.finished", stageId: id, outcome: "merged", sha: sha(i), detail: "" });
  });
  return { story, approved };
}

test("loom remembers its latest 20 merge commits: a push of an older one needs a new approval", () => {
  const recent = mergedTwentyOne();
  recent.story.send({ type: "head.moved", headSha: sha(1), before: recent.approved });
  assert.equal(recent.story.state.approvedSha, sha(1), "the 20th newest is still loom's own");
  const oldest = mergedTwentyOne();
  oldest.story.send({ type: "head.moved", headSha: sha(0), before: oldest.approved });
  assert.equal(oldest.story.state.approvedSha, null, "the 21st newest is forgotten");
});

test("a head whose push time is unknown is approved by a comment whenever it was written", () => {
  const story = new Story(makePlan([["a", []]]), { trusted: false });
  story.send({
    type: "head.moved",
    headSha: "b".repeat(40),
    before: story.state.pr.headSha,
    pushedAt: 5_000,
  });
  story.send({ type: "head.moved", headSha: "c".repeat(40), before: "b".repeat(40) });
  assert.equal(story.state.pr.headAt, undefined);
  story.send({
    type: "command.received",
    command: "approve",
    sender: "alice",
    source: { kind: "comment", commentId: 1 },
    writtenAt: 1_000,
  });
  assert.equal(story.state.approvedSha, "c".repeat(40));
});
