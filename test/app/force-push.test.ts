import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { readStoredPlan } from "../../app/engine/stored-plan.ts";
import type { PlanState } from "../../src/orchestrator/state.ts";
import { issueCommentPayload, pullRequestPayload, workflowRunPayload } from "../support/webhook-payloads.ts";
import { nextSha } from "./fake-github.ts";
import { BOT, DIAMOND_PLAN, PLAN_PATH, startHarness } from "./loom-harness.ts";
import type { Harness } from "./loom-harness.ts";
import { checkedSha, passingResult } from "./stage-results.ts";

/*
 * Issue 12, item 2: a stage counts as merged only while the pull request's head contains its
 * commit. GitHub's compare `base...head` says `ahead` or `identical` when head contains base and
 * `diverged` or `behind` when it does not (a force-push that dropped base); the fake answers what
 * each test says the history is.
 */

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const dispatchesOf = (harness: Harness, stageId: string) =>
  harness.fake.dispatches.filter((d) => d.inputs["stage_id"] === stageId);

async function finishRun(harness: Harness, stageId: string) {
  const [dispatch] = dispatchesOf(harness, stageId);
  assert.ok(dispatch, `${stageId} was dispatched`);
  harness.fake.finishRun(dispatch.runId, "success", passingResult(stageId));
  await harness.receive(
    "workflow_run",
    workflowRunPayload("completed", { id: dispatch.runId, displayTitle: `loom ${dispatch.inputs["key"]}` }),
  );
}

/** GitHub compares the App asked for so far. */
const compares = (harness: Harness) => harness.gh.requests.filter((r) => r.path.includes("/compare/")).length;

/** The webhook of loom's own push of `headSha` (made on `before`): the requests it cost. */
async function receiveOwnPush(harness: Harness, headSha: string, before: string): Promise<string[]> {
  const from = harness.gh.requests.length;
  await harness.receive(
    "pull_request",
    pullRequestPayload("synchronize", { number: 1, headSha, before, sender: { login: "loom[bot]" } }),
  );
  return harness.gh.requests.slice(from).map((r) => `${r.method} ${r.path}`);
}

async function planStateOf(harness: Harness): Promise<PlanState> {
  const [plan] = await harness.store.listPlansForPull("acme", "widgets", 1);
  assert.ok(plan);
  return readStoredPlan(plan).state;
}

async function stagesOf(harness: Harness): Promise<PlanState["stages"]> {
  return (await planStateOf(harness)).stages;
}

/** A person force-pushes a head that contains none of loom's merges; returns the new head. */
async function forcePush(harness: Harness): Promise<string> {
  const before = harness.fake.refs.get("feature/plan") ?? "";
  const forced = nextSha();
  harness.fake.refs.set("feature/plan", forced);
  harness.fake.files.set(`${forced}:${PLAN_PATH}`, DIAMOND_PLAN);
  harness.fake.compare = (_base, head) => (head === forced ? "diverged" : "ahead");
  await harness.receive(
    "pull_request",
    pullRequestPayload("synchronize", { number: 1, headSha: forced, before, sender: { login: "alice" } }),
  );
  return forced;
}

/**
 * alice pushes a new head holding the plan; `contains(base)` says whether it holds `base` (GitHub's
 * compare); by default a later commit holds an earlier one. Returns the new head.
 */
async function pushHead(harness: Harness, contains?: (base: string) => boolean): Promise<string> {
  const before = harness.fake.refs.get("feature/plan") ?? "";
  const pushed = nextSha();
  harness.fake.refs.set("feature/plan", pushed);
  harness.fake.files.set(`${pushed}:${PLAN_PATH}`, DIAMOND_PLAN);
  if (contains)
    harness.fake.compare = (base, head) => (head !== pushed || contains(base) ? "ahead" : "diverged");
  await harness.receive(
    "pull_request",
    pullRequestPayload("synchronize", { number: 1, headSha: pushed, before, sender: { login: "alice" } }),
  );
  return pushed;
}

async function openDiamond(): Promise<Harness> {
  const harness = await startHarness();
  harness.fake.files.set("main:.github/loom.yml", "rename_plans: false\n");
  await harness.receive(
    "pull_request",
    pullRequestPayload("opened", { number: 1, headSha: harness.headSha }),
  );
  return harness;
}

test("a merged stage whose commit a force-push removed is not treated as merged: its dependents wait", async () => {
  h = await openDiamond();
  await finishRun(h, "a");
  // b merges, then a force-push drops it (and a); merging b again meets a conflict.
  h.fake.mergeAnswers.set("loom/pr-1/PLAN-diamond/b", [201, 409]);
  await finishRun(h, "b");
  assert.equal((await stagesOf(h))["b"]?.merged, true);
  const forced = await forcePush(h);

  const stages = await stagesOf(h);
  assert.deepEqual(
    [stages["b"]?.status, stages["b"]?.merged],
    ["merge-conflict", false],
    "b is no longer merged; loom tried to merge it again",
  );
  assert.ok(
    stages["b"]?.notes.some((n) => n.text.includes(`no longer contains ${checkedSha("b").slice(0, 7)}`)),
    "b's history says why",
  );
  assert.ok(stages["b"]?.notes.some((n) => n.text.includes(forced.slice(0, 7))));
  assert.deepEqual([stages["a"]?.status, stages["a"]?.merged], ["completed", true], "a was merged again");
  assert.deepEqual(
    h.fake.merges.map((m) => [m.head, m.status]),
    [
      ["loom/pr-1/PLAN-diamond/a", 201],
      ["loom/pr-1/PLAN-diamond/b", 201],
      ["loom/pr-1/PLAN-diamond/a", 201],
      ["loom/pr-1/PLAN-diamond/b", 409],
    ],
  );
  await finishRun(h, "c");
  assert.equal((await stagesOf(h))["c"]?.merged, true);
  assert.deepEqual(dispatchesOf(h, "d"), [], "d waits: b's work is not in the pull request");
  await h.finish();
  h = undefined;
});

test("a push that keeps loom's merges costs one compare and changes nothing", async () => {
  h = await openDiamond();
  await finishRun(h, "a");
  const before = h.fake.refs.get("feature/plan") ?? "";
  const pushed = nextSha();
  h.fake.refs.set("feature/plan", pushed);
  h.fake.files.set(`${pushed}:${PLAN_PATH}`, DIAMOND_PLAN);
  await h.receive(
    "pull_request",
    pullRequestPayload("synchronize", { number: 1, headSha: pushed, before, sender: { login: "alice" } }),
  );
  assert.equal(compares(h), 1);
  assert.deepEqual([(await stagesOf(h))["a"]?.merged], [true]);
  assert.equal(h.fake.merges.length, 1, "nothing merged again");
  await h.finish();
  h = undefined;
});

test("the push of loom's own merge reads the file list only (no config, permission or plan text)", async () => {
  h = await openDiamond();
  await finishRun(h, "a");
  const merged = (await planStateOf(h)).loomHeads?.at(-1) ?? "";
  assert.notEqual(merged, "", "loom recorded its merge's SHA");
  const read = await receiveOwnPush(h, merged, h.headSha);
  for (const path of ["/contents/", "/collaborators/"])
    assert.ok(!read.some((r) => r.includes(path)), `loom's own head reads nothing again: ${read.join(", ")}`);
  assert.equal((await planStateOf(h)).pr.headSha, merged, "the plan moved to loom's head");
  await h.finish();
  h = undefined;
});

test("the push of loom's own merge that GitHub's answer shows changed no plan file reads nothing at all", async () => {
  h = await openDiamond();
  h.fake.mergeFiles = [{ filename: "src/a.ts", status: "added" }];
  await finishRun(h, "a");
  const state = await planStateOf(h);
  const merged = state.loomHeads?.at(-1) ?? "";
  assert.equal(state.pr.headSha, merged, "the merge's answer moved the plan to loom's head");
  assert.deepEqual(await receiveOwnPush(h, merged, h.headSha), [], "not even the file list");
  // A person's push next is read in full again: the flag belongs to loom's head only.
  const pushed = nextSha();
  h.fake.refs.set("feature/plan", pushed);
  h.fake.files.set(`${pushed}:${PLAN_PATH}`, DIAMOND_PLAN);
  h.fake.compare = () => "ahead";
  const beforePush = h.gh.requests.length;
  await h.receive(
    "pull_request",
    pullRequestPayload("synchronize", {
      number: 1,
      headSha: pushed,
      before: merged,
      sender: { login: "alice" },
    }),
  );
  const read = h.gh.requests.slice(beforePush).map((r) => `${r.method} ${r.path}`);
  assert.ok(
    read.some((r) => r.includes("/pulls/1/files")),
    `a person's push lists the files: ${read.join(", ")}`,
  );
  assert.equal((await planStateOf(h)).pr.plansUntouched, undefined);
  await h.finish();
  h = undefined;
});

test("the push of loom's own merge whose answer lists a plan file, or lists no files, reads the file list", async () => {
  for (const files of [[{ filename: "doc/plans/PLAN-other.md", status: "added" }], null]) {
    h = await openDiamond();
    h.fake.mergeFiles = files;
    await finishRun(h, "a");
    const merged = (await planStateOf(h)).loomHeads?.at(-1) ?? "";
    const read = await receiveOwnPush(h, merged, h.headSha);
    assert.ok(
      read.some((r) => r.includes("/pulls/1/files")),
      `files ${JSON.stringify(files)}: ${read.join(", ")}`,
    );
    await h.finish();
    h = undefined;
  }
});

test("the late webhook of loom's own earlier merge, after loom took a later merge as the head, reads nothing and moves nothing", async () => {
  h = await openDiamond();
  await finishRun(h, "a");
  const first = (await planStateOf(h)).pr.headSha;
  await finishRun(h, "b");
  const state = await planStateOf(h);
  assert.notEqual(state.pr.headSha, first, "b's merge is the head now");
  assert.ok((state.loomHeads ?? []).includes(first));
  const read = await receiveOwnPush(h, first, h.headSha);
  assert.deepEqual(read, []);
  assert.equal((await planStateOf(h)).pr.headSha, state.pr.headSha);
  await h.finish();
  h = undefined;
});

test("a force-push that keeps one merged stage's commit and drops another's loses only the dropped one", async () => {
  h = await openDiamond();
  await finishRun(h, "a");
  await finishRun(h, "b");
  // The rewritten head still holds a's commit, not b's, nor loom's last merge.
  await pushHead(h, (base) => base === checkedSha("a"));
  const stages = await stagesOf(h);
  assert.equal(stages["a"]?.merged, true, "a's commit is still in the head");
  assert.ok(!stages["a"]?.notes.some((n) => n.text.includes("no longer contains")));
  assert.ok(
    stages["b"]?.notes.some((n) => n.text.includes(`no longer contains ${checkedSha("b").slice(0, 7)}`)),
  );
  assert.deepEqual(
    h.fake.merges.map((m) => m.head),
    ["loom/pr-1/PLAN-diamond/a", "loom/pr-1/PLAN-diamond/b", "loom/pr-1/PLAN-diamond/b"],
    "only b is merged again",
  );
  await h.finish();
  h = undefined;
});

test("a push on top of several merged stages costs one compare, not one per stage", async () => {
  h = await openDiamond();
  await finishRun(h, "a");
  await finishRun(h, "b");
  await finishRun(h, "c");
  const earlier = compares(h);
  await pushHead(h);
  assert.equal(compares(h) - earlier, 1, "the new head against loom's last merge");
  const stages = await stagesOf(h);
  assert.deepEqual(
    ["a", "b", "c"].map((id) => stages[id]?.merged),
    [true, true, true],
  );
  await h.finish();
  h = undefined;
});

test("a force-push to a fork plan's head loses no merged stage: its stages merge into loom's result branch", async () => {
  h = await startHarness();
  h.fake.files.set("main:.github/loom.yml", "rename_plans: false\n");
  const fork = { author: { login: "mallory" }, headRepo: "mallory/widgets" };
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha, ...fork }));
  await h.receive(
    "issue_comment",
    issueCommentPayload({ number: 1, body: "/loom approve", sender: { login: "alice" } }),
  );
  await finishRun(h, "a");
  assert.equal((await stagesOf(h))["a"]?.merged, true);
  const merges = h.fake.merges.length;
  const pushed = nextSha();
  h.fake.files.set(`${pushed}:${PLAN_PATH}`, DIAMOND_PLAN);
  h.fake.refs.set("feature/plan", pushed);
  // mallory rewrote the fork's branch; it never held the result branch's merges anyway.
  h.fake.compare = (_base, head) => (head === pushed ? "diverged" : "ahead");
  await h.receive(
    "pull_request",
    pullRequestPayload("synchronize", { number: 1, headSha: pushed, before: h.headSha, ...fork }),
  );
  const stages = await stagesOf(h);
  assert.equal(stages["a"]?.merged, true);
  assert.ok(!stages["a"]?.notes.some((n) => n.text.includes("no longer contains")));
  assert.equal(h.fake.merges.length, merges, "nothing merged again");
  await h.finish();
  h = undefined;
});

test("a person's push under a merged stage's paths lists it as affected; the same push sent as loom's bot (another replica's merge not yet recorded) or found by the reconcile lists nothing", async () => {
  // "": a head the reconcile found without its webhook (healPulls), which may be loom's own merge.
  for (const sender of ["alice", BOT, ""]) {
    const harness = await openDiamond();
    h = harness;
    harness.fake.mergeFiles = [{ filename: "src/a.ts", status: "added" }];
    await finishRun(harness, "a");
    assert.equal((await stagesOf(harness))["a"]?.merged, true);
    const before = harness.fake.refs.get("feature/plan") ?? "";
    const pushed = nextSha();
    harness.fake.refs.set("feature/plan", pushed);
    harness.fake.files.set(`${pushed}:${PLAN_PATH}`, DIAMOND_PLAN);
    harness.fake.compareFiles = [{ filename: "src/a.ts", status: "modified" }];
    await harness.receive(
      "pull_request",
      pullRequestPayload("synchronize", { number: 1, headSha: pushed, before, sender: { login: sender } }),
    );
    const affected = (await planStateOf(harness)).affected?.stages.map((s) => s.id) ?? [];
    if (sender === "alice")
      assert.ok(affected.includes("a"), `a person's push affects a: ${affected.join()}`);
    else assert.deepEqual(affected, [], "loom's own push offers nothing to re-run");
    await harness.cleanup();
    h = undefined;
  }
});
