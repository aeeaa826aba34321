import assert from "node:assert/strict";
import { test } from "node:test";
import type { Effect } from "../../src/orchestrator/effects.ts";
import { findDispatchBlocker } from "../../src/orchestrator/schedule.ts";
import { getMergePoint } from "../../src/orchestrator/make-target-branch.ts";
import { renderStatusComment } from "../../src/status/render-status-comment.ts";
import { getPlanCheckState } from "../../src/status/render-plan-check-run.ts";
import { KEY, Story, makePlan } from "./story.ts";

const TARGET = "loom/pr-7/result/PLAN-demo";
const plan = makePlan([
  ["a", []],
  ["b", ["a"]],
]);

/** A plan from mallory's fork, whose branch is named `main` like the base repository's. */
function forkStory(repo: string | null = "mallory/widgets"): Story {
  return new Story(plan, {
    trusted: false,
    fork: { repo, headRef: "main" },
    settings: { renamePlans: true },
  });
}

/** Every branch name an effect writes to, branches from or merges into. */
function branchesOf(effects: Effect[]): string[] {
  return effects.flatMap((effect) => {
    switch (effect.type) {
      case "createBranch":
        return [effect.branch, effect.from];
      case "mergeBranch":
        return [effect.head, effect.base];
      case "syncTarget":
      case "deleteBranch":
      case "dispatchRun":
        return [effect.branch];
      case "cancelRun":
      case "ensureLabel":
      case "renamePlanFile":
      case "reply":
      case "setTimer":
      case "syncCheckRun":
      case "syncStatusComment":
        return [];
    }
  });
}

test("a fork plan whose branch is named main runs on loom/pr-<n>/result/<plan-id>, never on main", () => {
  const story = forkStory();
  const head = story.state.pr.headSha;
  const seen: Effect[] = [...story.effects];
  seen.push(...story.command("approve", undefined, head));
  assert.deepEqual(story.of("syncTarget"), [
    { type: "syncTarget", key: `${KEY}:@plan:sync-target:${head}`, branch: TARGET, sha: head },
  ]);
  assert.deepEqual(
    story.dispatched(),
    [],
    "no stage starts before the approved head is in the result branch",
  );
  assert.match(findDispatchBlocker(story.state) ?? "", /bringing the approved head/);

  seen.push(...story.send({ type: "target.synced", sha: head, outcome: "synced", detail: "created" }));
  assert.deepEqual(story.dispatched(), ["a"]);
  assert.equal(getMergePoint(story.state), TARGET, "a starts from the result branch (the dispatch's base)");

  seen.push(...story.run("a", "completed"));
  assert.deepEqual(
    story.of("mergeBranch").map((m) => m.base),
    [TARGET],
  );
  seen.push(...story.merge("a"));
  assert.equal(
    story.state.loomHeads,
    undefined,
    "a merge into the result branch is not a push to the pull request",
  );
  assert.equal(story.state.approvedSha, head);
  assert.deepEqual(story.dispatched(), ["b"]);
  assert.equal(getMergePoint(story.state), TARGET, "b starts from the result branch, with a's work");
  seen.push(...story.pass("b"));

  assert.ok(!branchesOf(seen).includes("main"), `no effect names main: ${branchesOf(seen).join(", ")}`);
  assert.deepEqual(
    seen.filter((e) => e.type === "renamePlanFile"),
    [],
    "the plan file lives in the fork: loom does not rename it",
  );
  assert.deepEqual(getPlanCheckState(story.state), { status: "completed", conclusion: "success" });
});

test("a newly approved head of the fork is merged into the result branch before new stages start", () => {
  const story = forkStory();
  const first = story.state.pr.headSha;
  story.command("approve", undefined, first);
  story.send({ type: "target.synced", sha: first, outcome: "synced", detail: "created" });
  story.pass("a");
  assert.deepEqual(story.dispatched(), ["b"]);
  story.run("b", "crashed");

  const second = "head0000000000000000000000000000000000002";
  story.send({ type: "head.moved", headSha: second, before: first, fork: { repo: "mallory/widgets" } });
  assert.equal(story.state.approvedSha, null, "a push to the fork needs a new approval");
  story.send({ type: "tick" }, 10 * 60_000);
  assert.deepEqual(story.dispatched(), []);
  story.command("approve", undefined, second);
  assert.deepEqual(
    story.of("syncTarget").map((e) => e.sha),
    [second],
  );
  assert.deepEqual(story.dispatched(), []);
  story.send({ type: "target.synced", sha: second, outcome: "synced", detail: "merged" });
  assert.deepEqual(story.dispatched(), ["b"]);
});

test("a head that conflicts with the result branch does not run, and says how to go on", () => {
  const story = forkStory();
  const head = story.state.pr.headSha;
  story.command("approve", undefined, head);
  story.send({
    type: "target.synced",
    sha: head,
    outcome: "conflict",
    detail: "it conflicts with the stage work",
  });
  assert.deepEqual(story.dispatched(), []);
  story.send({ type: "tick" }, 60_000);
  assert.deepEqual(story.of("syncTarget"), [], "the same head is not tried again");
  assert.match(findDispatchBlocker(story.state) ?? "", new RegExp(`merge \`${TARGET}\` into your branch`));
  assert.match(renderStatusComment(story.state), /Not running: head head000 could not be merged/);
});

test("a deleted fork's head that is not in the result branch never runs", () => {
  const story = forkStory(null);
  story.command("approve", undefined, story.state.pr.headSha);
  assert.deepEqual(story.of("syncTarget"), []);
  assert.deepEqual(story.dispatched(), []);
  assert.match(findDispatchBlocker(story.state) ?? "", /fork was deleted/);
  assert.match(renderStatusComment(story.state), /comes from a fork that was deleted/);
});

test("the status comment tells the fork's author where the result lives; other plans have no such note", () => {
  assert.match(
    renderStatusComment(forkStory().state),
    new RegExp(`merge into \`${TARGET}\` in this repository`),
  );
  assert.doesNotMatch(renderStatusComment(new Story(plan).state), /loom\/pr-7\/result/);
});

test("a sync under way is asked for once, a held fork plan syncs nothing, and a sync answer for another head leaves the one under way", () => {
  const held = forkStory();
  held.send({ type: "labels.changed", labels: ["loom:hold"] });
  held.command("approve", undefined, held.state.pr.headSha);
  assert.deepEqual(held.of("syncTarget"), [], "held: nothing is brought into the result branch");

  const story = forkStory();
  const head = story.state.pr.headSha;
  story.command("approve", undefined, head);
  assert.equal(story.of("syncTarget").length, 1);
  story.send({ type: "tick" }, 60_000);
  assert.deepEqual(story.of("syncTarget"), [], "no second request while the first is under way");
  story.send({ type: "target.synced", sha: "0".repeat(40), outcome: "synced", detail: "" });
  assert.equal(story.state.fork?.syncingSha, head);
  assert.deepEqual(story.dispatched(), [], "another head in the result branch does not start this one");
});

test("a head that conflicted and then made it into the result branch runs, its problem forgotten", () => {
  const story = forkStory();
  const head = story.state.pr.headSha;
  story.command("approve", undefined, head);
  story.send({ type: "target.synced", sha: head, outcome: "error", detail: "refused" });
  assert.deepEqual(story.state.fork?.problem, { sha: head, detail: "refused" });
  story.send({ type: "target.synced", sha: head, outcome: "synced", detail: "merged by hand" });
  assert.equal(story.state.fork?.problem, null);
  assert.deepEqual(story.dispatched(), ["a"]);
});

test("a fork deleted after its plan started keeps the result branch and runs no new head", () => {
  const story = forkStory();
  const head = story.state.pr.headSha;
  story.command("approve", undefined, head);
  story.send({ type: "target.synced", sha: head, outcome: "synced", detail: "" });
  story.send({ type: "head.moved", headSha: "7".repeat(40), before: head, fork: { repo: null } });
  assert.equal(story.state.fork?.repo, null);
  assert.equal(story.state.fork?.target, TARGET);
  story.command("approve", undefined, "7".repeat(40));
  assert.deepEqual(story.of("syncTarget"), []);
  assert.match(findDispatchBlocker(story.state) ?? "", /fork was deleted: loom does not run head 7777777/);
});
