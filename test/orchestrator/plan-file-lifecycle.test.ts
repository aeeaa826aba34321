import assert from "node:assert/strict";
import { test } from "node:test";
import { getPlanCheckState } from "../../src/status/render-plan-check-run.ts";
import {
  listLifecycleNames,
  stripLifecyclePrefix,
  withLifecyclePrefix,
} from "../../src/plan/lifecycle-path.ts";
import { makePlan, Story } from "./story.ts";

const HEAD = "head0000000000000000000000000000000000001";
const RENAMED = "feed0000000000000000000000000000000000002";

test("lifecycle names: IN_PROGRESS- and DONE- replace each other in the file name only", () => {
  assert.equal(withLifecyclePrefix("doc/plans/PLAN-x.md", "IN_PROGRESS-"), "doc/plans/IN_PROGRESS-PLAN-x.md");
  assert.equal(withLifecyclePrefix("doc/plans/IN_PROGRESS-PLAN-x.md", "DONE-"), "doc/plans/DONE-PLAN-x.md");
  assert.equal(stripLifecyclePrefix("DONE-PLAN-x.md"), "PLAN-x.md");
  assert.equal(stripLifecyclePrefix("IN_PROGRESS-dir/PLAN-x.md"), "IN_PROGRESS-dir/PLAN-x.md");
  assert.deepEqual(listLifecycleNames("a/PLAN-x.md"), [
    "a/PLAN-x.md",
    "a/IN_PROGRESS-PLAN-x.md",
    "a/DONE-PLAN-x.md",
  ]);
});

test("a plan file is renamed IN_PROGRESS- once its first stage starts and DONE- once every stage merged", () => {
  const story = new Story(makePlan([["a", []]]), { settings: { renamePlans: true } });
  assert.deepEqual(
    story.of("renamePlanFile").map((e) => e.prefix),
    ["IN_PROGRESS-"],
    "the first dispatch starts the plan",
  );
  story.send({
    type: "planFile.renamed",
    path: "doc/plans/IN_PROGRESS-PLAN-demo.md",
    sha: RENAMED,
    parent: HEAD,
  });
  assert.equal(story.state.planFile, "doc/plans/IN_PROGRESS-PLAN-demo.md");
  assert.equal(story.state.pr.headSha, RENAMED, "loom's own commit is the head at once");
  assert.ok(story.of("syncCheckRun").length > 0, "check runs follow the head");
  assert.deepEqual(story.of("renamePlanFile"), []);

  story.pass("a");
  assert.deepEqual(
    story.of("renamePlanFile").map((e) => e.prefix),
    ["DONE-"],
  );
  assert.deepEqual(getPlanCheckState(story.state), { status: "in_progress" }, "green only once archived");
  story.send({
    type: "planFile.renamed",
    path: "doc/plans/DONE-PLAN-demo.md",
    sha: "d".repeat(40),
    parent: RENAMED,
  });
  assert.deepEqual(getPlanCheckState(story.state), { status: "completed", conclusion: "success" });
});

test("an untrusted plan keeps its approval across loom's rename commit, as across its merges", () => {
  const story = new Story(makePlan([["a", []]]), { settings: { renamePlans: true }, trusted: false });
  assert.deepEqual(story.of("renamePlanFile"), [], "nothing starts, nothing is renamed before approval");
  story.command("approve", undefined, HEAD);
  assert.deepEqual(
    story.of("renamePlanFile").map((e) => e.prefix),
    ["IN_PROGRESS-"],
  );
  story.send({
    type: "planFile.renamed",
    path: "doc/plans/IN_PROGRESS-PLAN-demo.md",
    sha: RENAMED,
    parent: HEAD,
  });
  assert.equal(story.state.approvedSha, RENAMED);
  // A person's push after it needs a new approval.
  story.send({ type: "head.moved", headSha: "e".repeat(40), before: RENAMED });
  assert.equal(story.state.approvedSha, null);
});

test("a rename loom gave up on is said on the plan check run and the plan still ends green", () => {
  const story = new Story(makePlan([["a", []]]), { settings: { renamePlans: true } });
  story.send({
    type: "planFile.renameFailed",
    reason: "renaming doc/plans/PLAN-demo.md: 403 Resource not accessible",
  });
  story.pass("a");
  assert.deepEqual(story.of("renamePlanFile"), [], "no more tries");
  assert.deepEqual(getPlanCheckState(story.state), { status: "completed", conclusion: "success" });
});

test("without rename_plans the plan file keeps its name", () => {
  const story = new Story(makePlan([["a", []]]), { settings: { renamePlans: false } });
  story.pass("a");
  assert.deepEqual(story.of("renamePlanFile"), []);
  assert.deepEqual(getPlanCheckState(story.state), { status: "completed", conclusion: "success" });
});
