import { test } from "node:test";
import assert from "node:assert/strict";
import { KEY, Story, makePlan } from "./story.ts";

const MERGE = "e".repeat(40);

/** Stage `id` completed, and loom's merge answered with commit `MERGE` made on `parent`. */
function mergeOn(story: Story, id: string, parent: string) {
  story.run(id, "completed");
  return story.send({
    type: "merge.finished",
    stageId: id,
    outcome: "merged",
    sha: MERGE,
    parent,
    detail: "",
  });
}

test("loom's merge made on the head it knows is the head at once; its push's webhook then changes nothing", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", ["a"]],
    ]),
  );
  const head = story.state.pr.headSha;
  mergeOn(story, "a", head);
  assert.equal(story.state.pr.headSha, MERGE);
  assert.deepEqual(story.dispatched(), ["b"]);
  const effects = story.send({ type: "head.moved", headSha: MERGE, before: head });
  assert.equal(story.state.pr.headSha, MERGE);
  assert.deepEqual(
    effects.filter((e) => e.type === "syncCheckRun"),
    [],
    "the check runs followed the head with the merge, not again with the push",
  );
});

test("a merge GitHub made on a head loom has not seen yet (someone pushed first) waits for the pushes", () => {
  const story = new Story(makePlan([["a", []]]));
  const head = story.state.pr.headSha;
  mergeOn(story, "a", "c".repeat(40));
  assert.equal(story.state.pr.headSha, head, "the head is not skipped past a push loom has not seen");
  story.send({ type: "head.moved", headSha: "c".repeat(40), before: head });
  story.send({ type: "head.moved", headSha: MERGE, before: "c".repeat(40) });
  assert.equal(story.state.pr.headSha, MERGE);
});

test("an approved plan from an untrusted author stays approved through loom's own merge", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", ["a"]],
    ]),
    { trusted: false },
  );
  const head = story.state.pr.headSha;
  story.command("approve", undefined, head);
  mergeOn(story, "a", head);
  assert.equal(story.state.approvedSha, MERGE);
  assert.deepEqual(story.dispatched(), ["b"]);
});

test("a fork plan's merge moves its result branch, never the pull request's head", () => {
  const story = new Story(makePlan([["a", []]]), {
    trusted: false,
    fork: { repo: "mallory/widgets", headRef: "main" },
  });
  const head = story.state.pr.headSha;
  story.command("approve", undefined, head);
  story.send({ type: "target.synced", sha: head, outcome: "synced", detail: "created" });
  mergeOn(story, "a", head);
  assert.equal(story.state.pr.headSha, head);
});

test("the plan's DONE- rename after its last merge is made on loom's merge commit", () => {
  const story = new Story(makePlan([["a", []]]), { settings: { renamePlans: true } });
  const effects = mergeOn(story, "a", story.state.pr.headSha);
  assert.ok(effects.some((e) => e.type === "renamePlanFile" && e.prefix === "DONE-"));
  assert.equal(story.state.pr.headSha, MERGE, "the head the rename commits on");
});

test("a plan's first dispatch comes before its IN_PROGRESS- rename: it does not wait for the rename's four requests", () => {
  const story = new Story(makePlan([["a", []]]), { settings: { renamePlans: true } });
  const progress = story.effects
    .filter((e) => e.type === "dispatchRun" || e.type === "renamePlanFile")
    .map((e) => e.key);
  assert.deepEqual(progress, [`${KEY}:a:1:dispatch`, `${KEY}:@plan:rename:IN_PROGRESS-`]);
});

/** An approved untrusted plan a → b → c whose merges of a and b loom took as the head at once. */
function twoOwnMerges(): { story: Story; heads: string[] } {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", ["a"]],
      ["c", ["b"]],
    ]),
    { trusted: false },
  );
  story.command("approve", undefined, story.state.pr.headSha);
  const heads = story.mergeInTurn(["a", "b"]);
  assert.equal(story.state.pr.headSha, heads[2]);
  assert.equal(story.state.approvedSha, heads[2]);
  return { story, heads };
}

test("the late webhook of loom's earlier merge does not move the head back (nor drop the approval)", () => {
  const { story, heads } = twoOwnMerges();
  story.send({ type: "head.moved", headSha: heads[1] ?? "", before: heads[0] ?? "" });
  assert.equal(story.state.pr.headSha, heads[2]);
  assert.equal(story.state.approvedSha, heads[2]);
  story.send({ type: "head.moved", headSha: heads[2] ?? "", before: heads[1] ?? "" });
  assert.equal(story.state.pr.headSha, heads[2]);
  assert.equal(story.state.approvedSha, heads[2]);
  assert.deepEqual(story.dispatched(), [], "c was dispatched once, with b's merge");
  assert.equal(story.stage("c").sessions.length, 1);
});

test("a push from the head back to loom's earlier merge (a reset) does move the head", () => {
  const { story, heads } = twoOwnMerges();
  story.send({ type: "head.moved", headSha: heads[1] ?? "", before: heads[2] ?? "" });
  assert.equal(story.state.pr.headSha, heads[1]);
  // A commit loom made itself on the approved head, pushed from the head loom knew: still loom's own.
  assert.equal(story.state.approvedSha, heads[1]);
});

test("a push that is not one of loom's commits is never taken for a late webhook, whatever its before", () => {
  const { story, heads } = twoOwnMerges();
  const pushed = "d".repeat(40);
  // Pushed on loom's first merge (the person had not fetched the second): a real move.
  story.send({ type: "head.moved", headSha: pushed, before: heads[1] ?? "" });
  assert.equal(story.state.pr.headSha, pushed);
  assert.equal(story.state.approvedSha, null, "a person's push needs a new approval");
});

test("a read-back of the head (no push behind it) is believed, even an earlier merge of loom's", () => {
  const { story, heads } = twoOwnMerges();
  story.send({ type: "head.moved", headSha: heads[1] ?? "", before: null });
  assert.equal(story.state.pr.headSha, heads[1]);
});

test("loom's merges on top of a person's push never bring back the approval that push dropped", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["c", []],
      ["b", ["a"]],
    ]),
    { trusted: false },
  );
  const approved = story.state.pr.headSha;
  story.command("approve", undefined, approved);
  assert.deepEqual(story.dispatched().sort(), ["a", "c"]);
  const pushed = "d".repeat(40);
  story.send({ type: "head.moved", headSha: pushed, before: approved });
  assert.equal(story.state.approvedSha, null, "a person's push needs a new approval");
  const [first, second] = ["1".repeat(40), "2".repeat(40)];
  story.run("a", "completed");
  story.send({
    type: "merge.finished",
    stageId: "a",
    outcome: "merged",
    sha: first,
    parent: pushed,
    detail: "",
  });
  assert.equal(story.state.pr.headSha, first);
  story.run("c", "completed");
  story.send({
    type: "merge.finished",
    stageId: "c",
    outcome: "merged",
    sha: second,
    parent: first,
    detail: "",
  });
  assert.equal(story.state.pr.headSha, second);
  assert.equal(story.state.approvedSha, null, "loom's own merges on the unapproved push approve nothing");
  assert.equal(story.state.approvalLost, undefined);
  assert.ok(!story.dispatched().includes("b"), "b waits for a person to approve what was pushed");
});

test("loom's merge made on a person's push, read back before its webhook, is not taken as made on the approved head", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", ["a"]],
    ]),
    { trusted: false },
  );
  const approved = story.state.pr.headSha;
  story.command("approve", undefined, approved);
  const pushed = "d".repeat(40);
  // GitHub merged on a push loom has not seen yet: the head does not move with the answer.
  mergeOn(story, "a", pushed);
  story.send({ type: "head.moved", headSha: MERGE, before: null });
  assert.equal(story.state.approvedSha, null, "a head read back is not known to be made on the approved one");
  // The merge's own webhook then says what it was made on: the person's push, never approved.
  story.send({ type: "head.moved", headSha: MERGE, before: pushed });
  assert.equal(story.state.approvedSha, null);
  assert.deepEqual(story.dispatched(), [], "b waits for a person to approve the pushed code");
});

test("loom's head is marked plans-untouched only when its merge or rename changed no plan file on the head loom knew; any other move clears it", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", ["a"]],
      ["c", ["b"]],
    ]),
  );
  const head = story.state.pr.headSha;
  story.run("a", "completed");
  story.send({
    type: "merge.finished",
    stageId: "a",
    outcome: "merged",
    sha: MERGE,
    parent: head,
    plansUntouched: true,
    tree: "7".repeat(40),
    detail: "",
  });
  assert.equal(story.state.pr.plansUntouched, true, "GitHub's answer listed no plan file");
  assert.equal(story.state.pr.headTree, "7".repeat(40), "and named the merge's tree");
  story.send({ type: "head.moved", headSha: "d".repeat(40), before: MERGE });
  assert.equal(story.state.pr.plansUntouched, undefined, "a person's push may change plan files");
  assert.equal(story.state.pr.headTree, undefined, "and has a tree loom does not know");
  story.run("b", "completed");
  const second = "f".repeat(40);
  story.send({
    type: "merge.finished",
    stageId: "b",
    outcome: "merged",
    sha: second,
    parent: "d".repeat(40),
    detail: "",
  });
  assert.equal(story.state.pr.headSha, second);
  assert.equal(story.state.pr.plansUntouched, undefined, "an answer without the files says nothing");
  story.send({
    type: "planFile.renamed",
    path: "doc/plans/IN_PROGRESS-PLAN-x.md",
    sha: "1".repeat(40),
    parent: second,
    tree: "8".repeat(40),
  });
  assert.equal(story.state.pr.headTree, "8".repeat(40));
  assert.equal(story.state.pr.headSha, "1".repeat(40));
  assert.equal(story.state.pr.plansUntouched, true, "loom's rename moved the plan file and nothing else");
});
