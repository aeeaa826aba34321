import assert from "node:assert/strict";
import { test } from "node:test";
import { MissingPlanStateError, step } from "../../src/orchestrator/step.ts";
import { Story, makePlan } from "./story.ts";
import { HEAD_SHA, T0, makePlanState } from "../status/make-plan-state.ts";

const MERGE = "e".repeat(40);
const RENAME = "d".repeat(40);

/** The plan's own check-run writes of the latest step. */
function planWrites(story: Story) {
  return story.of("syncCheckRun").filter((effect) => effect.stageId === null);
}

/** Whether the latest step wrote anything a person sees: a check run or the status comment. */
function wroteAnything(effects: readonly { type: string }[]): boolean {
  return effects.some((effect) => effect.type === "syncCheckRun" || effect.type === "syncStatusComment");
}

/** The pull request is opened again, by an author `trusted` or not, at its current head. */
function reopen(story: Story, trusted: boolean): void {
  story.send({ type: "plan.closed", merged: false });
  story.send({
    type: "plan.opened",
    plan: story.state.plan,
    settings: story.state.settings,
    pr: { number: 7, headRef: "feature/demo", headSha: story.state.pr.headSha, baseRef: "main" },
    trusted,
    labels: [],
  });
}

test("an approval of an older head is not carried onto loom's merge", () => {
  // The approval of a head the plan moved on from (it was trusted then): not an approval of this head.
  const state = makePlanState([{ id: "a", status: "completed" }], {
    trusted: false,
    approvedSha: "9".repeat(40),
  });
  const { state: after } = step(state, {
    type: "merge.finished",
    at: T0 + 400_000,
    stageId: "a",
    outcome: "merged",
    sha: MERGE,
    parent: HEAD_SHA,
    detail: "",
  });
  assert.equal(after.pr.headSha, MERGE);
  assert.equal(after.approvedSha, null);
  assert.equal(after.approvalLost, undefined);
});

test("an untrusted plan reopened at the head it was approved on stays approved", () => {
  const story = new Story(makePlan([["a", []]]), { trusted: false });
  const head = story.state.pr.headSha;
  story.command("approve", undefined, head);
  reopen(story, false);
  assert.equal(story.state.approvedSha, head);
  assert.equal(story.state.approvalLost, undefined);
});

test("loom's merges are kept by a trusted plan's head moves: they never drop or carry an approval", () => {
  // Approved while untrusted, then the author became trusted: the approval is left as it was.
  const story = new Story(makePlan([["a", []]]), { trusted: false });
  const head = story.state.pr.headSha;
  story.command("approve", undefined, head);
  reopen(story, true);
  story.run("a", "completed");
  story.send({
    type: "merge.finished",
    stageId: "a",
    outcome: "merged",
    sha: MERGE,
    parent: head,
    detail: "",
  });
  assert.equal(story.state.pr.headSha, MERGE);
  assert.equal(story.state.approvedSha, head);
  assert.equal(story.state.approvalLost, undefined);
});

test("loom remembers each of its own commits once, however often the answer naming it arrives", () => {
  const story = new Story(makePlan([["a", []]]));
  const head = story.state.pr.headSha;
  const renamed = {
    type: "planFile.renamed",
    path: "doc/plans/IN_PROGRESS-PLAN-demo.md",
    sha: RENAME,
    parent: head,
    tree: "f".repeat(40),
  } as const;
  story.send(renamed);
  story.send(renamed);
  assert.deepEqual(story.state.loomHeads, [RENAME]);
  assert.equal(story.state.pr.headSha, RENAME);
});

test("a step without a plan state for any event but plan.opened is a caller's bug, named by the event", () => {
  assert.throws(() => step(null, { type: "tick", at: T0 }), {
    name: "MissingPlanStateError",
    message: "tick for a plan loom has no state for",
  });
  assert.throws(() => step(null, { type: "tick", at: T0 }), MissingPlanStateError);
});

test("an event a closed plan ignores writes nothing", () => {
  const story = new Story(makePlan([["a", []]]));
  story.send({ type: "plan.closed", merged: false });
  story.send({ type: "tick" });
  assert.match(story.state.rejected.at(-1)?.reason ?? "", /tick ignored: the pull request is closed/);
  assert.deepEqual(story.effects, []);
});

test("an event older than the plan's last change does not turn its clock back", () => {
  const story = new Story(makePlan([["a", []]]));
  story.send({ type: "tick" }, 60_000);
  const latest = story.at;
  story.send({ type: "tick" }, -30_000);
  assert.equal(story.state.updatedAt, latest);
});

test("a closed fork plan still records its result branch's sync", () => {
  const story = new Story(makePlan([["a", []]]), {
    trusted: false,
    fork: { repo: "mallory/widgets", headRef: "main" },
  });
  const head = story.state.pr.headSha;
  story.command("approve", undefined, head);
  story.send({ type: "plan.closed", merged: false });
  story.send({ type: "target.synced", sha: head, outcome: "synced", detail: "created" });
  assert.equal(story.state.fork?.syncedSha, head);
});

test("the plan's check run is written at once (not held for a head move) on open, plan change, close and a failed run", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", ["a"]],
    ]),
  );
  const follows = (): (true | undefined)[] => planWrites(story).map((effect) => effect.follow);
  assert.deepEqual(follows(), [undefined], "opened");
  story.run("a", "crashed");
  assert.deepEqual(follows(), [undefined], "run failed");
  story.send({
    type: "plan.changed",
    plan: makePlan([
      ["a", []],
      ["b", ["a"]],
      ["c", []],
    ]),
  });
  assert.deepEqual(follows(), [undefined], "plan changed");
  story.send({ type: "plan.closed", merged: false });
  assert.deepEqual(follows(), [undefined], "closed");
});

test("a skip label put on before its stage was in the plan file skips the stage once it is added", () => {
  const story = new Story(makePlan([["a", []]]), { labels: ["loom:skip:c"] });
  story.send({
    type: "plan.changed",
    plan: makePlan([
      ["a", []],
      ["c", []],
    ]),
  });
  assert.equal(story.stage("c").status, "skipped");
});

test("the late webhook of loom's earlier merge writes nothing", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", []],
    ]),
  );
  const heads = story.mergeInTurn(["a", "b"]);
  story.send({ type: "head.moved", headSha: heads[1] ?? "", before: heads[0] ?? "" });
  assert.equal(story.state.pr.headSha, heads[2]);
  assert.equal(wroteAnything(story.effects), false);
});

test("a plan distrusted for loom's commit names that commit by its short SHA", () => {
  const story = new Story(makePlan([["a", []]]));
  story.send({ type: "plan.changed", plan: story.state.plan, untrusted: true });
  assert.equal(
    story.state.distrusted,
    "the plan file changed in a commit loom made at head000 (a stage's merge), not in a person's push",
  );
});
