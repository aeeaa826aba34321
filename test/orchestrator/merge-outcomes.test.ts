import assert from "node:assert/strict";
import { test } from "node:test";
import type { OrchestratorEvent } from "../../src/orchestrator/events.ts";
import { Story, makePlan } from "./story.ts";

type MergeFinished = Extract<OrchestratorEvent, { type: "merge.finished" }>;

const MERGE = "merge000000000000000000000000000000000001";
const pair = makePlan([
  ["a", []],
  ["b", ["a"]],
]);

/** A plan a → b whose stage a completed and waits for its merge. */
function awaitingMerge(): Story {
  const story = new Story(pair);
  story.run("a", "completed");
  return story;
}

/** The merge of stage a ends with `outcome` (and whatever else the answer says). */
function finishMerge(story: Story, answer: Partial<Omit<MergeFinished, "type" | "at">> = {}): void {
  story.send({ type: "merge.finished", stageId: "a", outcome: "merged", detail: "", ...answer });
}

/** The plan's own check-run writes of the latest step. */
function planWrites(story: Story) {
  return story.of("syncCheckRun").filter((effect) => effect.stageId === null);
}

/** Whether the latest step wrote anything a person sees: a check run or the status comment. */
function wroteAnything(story: Story): boolean {
  return story.effects.some(
    (effect) => effect.type === "syncCheckRun" || effect.type === "syncStatusComment",
  );
}

test("a merge answer for a stage the plan does not have is recorded and writes nothing", () => {
  const story = awaitingMerge();
  story.send({ type: "merge.finished", stageId: "ghost", outcome: "merged", sha: MERGE, detail: "" });
  assert.deepEqual(story.state.rejected.at(-1)?.reason, "merge.finished for an unknown stage");
  assert.equal(wroteAnything(story), false);
});

test("a second merge answer for a merged stage is recorded as such and writes nothing", () => {
  const story = awaitingMerge();
  story.merge("a");
  story.merge("a");
  assert.equal(
    story.state.rejected.at(-1)?.reason,
    "merge.finished (merged) while the stage is completed, merged",
  );
  assert.equal(wroteAnything(story), false);
});

test("a merge answer for a stage still running is recorded with the stage's status", () => {
  const story = new Story(pair);
  finishMerge(story, { sha: MERGE });
  assert.equal(story.state.rejected.at(-1)?.reason, "merge.finished (merged) while the stage is executing");
  assert.equal(story.stage("a").merged, false);
});

test("nothing new to merge leaves the head where it is: the plan's check run is written at once", () => {
  const story = awaitingMerge();
  const head = story.state.pr.headSha;
  const known = structuredClone(story.state.loomHeads);
  finishMerge(story, { outcome: "nothing-to-merge", sha: MERGE, parent: head });
  assert.equal(story.state.pr.headSha, head);
  assert.deepEqual(story.state.loomHeads, known, "no commit of loom's to remember");
  const writes = planWrites(story);
  assert.equal(writes.length, 1);
  assert.equal(writes[0]?.follow, undefined, "not held back as for a head move");
});

test("nothing new to merge without a commit leaves the head and loom's commits as they were", () => {
  const story = awaitingMerge();
  const head = story.state.pr.headSha;
  const known = structuredClone(story.state.loomHeads);
  finishMerge(story, { outcome: "nothing-to-merge", parent: head });
  assert.equal(story.state.pr.headSha, head);
  assert.deepEqual(story.state.loomHeads, known);
  assert.equal(story.stage("a").merged, true);
});

test("a merge made on a head loom has not seen does not move the head, with or without its parent", () => {
  for (const parent of ["0".repeat(40), undefined]) {
    const story = awaitingMerge();
    const head = story.state.pr.headSha;
    finishMerge(story, { sha: MERGE, ...(parent === undefined ? {} : { parent }) });
    assert.equal(story.state.pr.headSha, head);
    assert.equal(story.stage("a").merged, true);
  }
});

test("a merge answer without its commit is noted with where the work went, and no SHA", () => {
  const story = awaitingMerge();
  finishMerge(story);
  assert.equal(story.stage("a").notes.at(-1)?.text, "merged into feature/demo");
});

test("a merge conflict starts a merge session with a fresh count of attempts, saying what conflicts", () => {
  const story = new Story(pair);
  story.run("a", "crashed");
  story.send({ type: "tick" }, 31_000);
  story.run("a", "completed");
  assert.equal(story.stage("a").failures, 1);
  finishMerge(story, { outcome: "conflict", detail: "CONFLICT in src/a.ts" });
  const a = story.stage("a");
  assert.deepEqual([a.status, a.failures, a.retryAt], ["merge-conflict", 0, null]);
  assert.ok(
    a.notes.some(
      (note) =>
        note.text === "merge conflict with feature/demo: CONFLICT in src/a.ts; a merge session resolves it",
    ),
  );
});

const refusals: [MergeFinished["outcome"], string, string][] = [
  ["conflict", "merge-conflict", "merge conflict with feature/demo: x; a merge session resolves it"],
  [
    "branch-moved",
    "merge-blocked",
    "not merged: x; review that push, then `/loom retry a` runs the stage again on it",
  ],
  ["error", "merge-blocked", "merge refused: x; `/loom retry a` to try again"],
];

for (const [outcome, status, note] of refusals) {
  test(`a merge that ends in ${outcome} leaves the head alone and tells the person what to do`, () => {
    const story = awaitingMerge();
    finishMerge(story, { outcome, detail: "x" });
    const a = story.stage("a");
    assert.equal(a.status, status);
    assert.ok(
      a.notes.some((n) => n.text === note),
      a.notes.map((n) => n.text).join("\n"),
    );
    const [plan] = planWrites(story);
    assert.equal(
      plan?.follow,
      undefined,
      "the plan's check run is written at once, not held for a head move",
    );
  });
}

test("a merge.lost for a stage the plan does not have is recorded, not thrown", () => {
  const story = awaitingMerge();
  story.merge("a");
  story.send({ type: "merge.lost", stageId: "ghost", headSha: story.state.pr.headSha, sha: MERGE });
  assert.equal(story.state.rejected.at(-1)?.reason, "merge.lost for a stage that is not merged");
});

test("a merge.lost about an old head names that head by its short SHA", () => {
  const story = awaitingMerge();
  story.merge("a");
  story.send({
    type: "merge.lost",
    stageId: "a",
    headSha: "f0rced00000000000000000000000000000000001",
    sha: MERGE,
  });
  assert.equal(
    story.state.rejected.at(-1)?.reason,
    "merge.lost for head f0rced0, which is no longer the head",
  );
});
