import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { readStoredPlan } from "../../app/engine/stored-plan.ts";
import type { PlanState } from "../../src/orchestrator/state.ts";
import { pullRequestPayload, workflowRunPayload } from "../support/webhook-payloads.ts";
import { nextSha } from "./fake-github.ts";
import { DIAMOND_PLAN, PLAN_PATH, startHarness } from "./loom-harness.ts";
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
  const compares = () => h!.gh.requests.filter((r) => r.path.includes("/compare/")).length;
  await h.receive(
    "pull_request",
    pullRequestPayload("synchronize", { number: 1, headSha: pushed, before, sender: { login: "alice" } }),
  );
  assert.equal(compares(), 1);
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
  const requestsBefore = h.gh.requests.length;
  await h.receive(
    "pull_request",
    pullRequestPayload("synchronize", {
      number: 1,
      headSha: merged,
      before: h.headSha,
      sender: { login: "loom[bot]" },
    }),
  );
  const read = h.gh.requests.slice(requestsBefore).map((r) => `${r.method} ${r.path}`);
  for (const path of ["/contents/", "/collaborators/"])
    assert.ok(!read.some((r) => r.includes(path)), `loom's own head reads nothing again: ${read.join(", ")}`);
  assert.equal((await planStateOf(h)).pr.headSha, merged, "the plan moved to loom's head");
  await h.finish();
  h = undefined;
});

test("the late webhook of loom's own earlier merge, after loom took a later merge as the head, reads nothing and moves nothing", async () => {
  h = await openDiamond();
  await finishRun(h, "a");
  const first = (await planStateOf(h)).pr.headSha;
  await finishRun(h, "b");
  const state = await planStateOf(h);
  assert.notEqual(state.pr.headSha, first, "b's merge is the head now");
  assert.ok((state.loomHeads ?? []).includes(first));
  const requestsBefore = h.gh.requests.length;
  await h.receive(
    "pull_request",
    pullRequestPayload("synchronize", {
      number: 1,
      headSha: first,
      before: h.headSha,
      sender: { login: "loom[bot]" },
    }),
  );
  assert.deepEqual(
    h.gh.requests.slice(requestsBefore).map((r) => `${r.method} ${r.path}`),
    [],
  );
  assert.equal((await planStateOf(h)).pr.headSha, state.pr.headSha);
  await h.finish();
  h = undefined;
});
