import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { pullRequestPayload } from "../support/webhook-payloads.ts";
import {
  BOT,
  completeRun,
  DIAMOND_PLAN,
  PLAN_PATH,
  startHarness,
  type Harness,
} from "../app/loom-harness.ts";
import { passingResult } from "../app/stage-results.ts";
import { readStoredPlan } from "../../app/engine/stored-plan.ts";

/**
 * Hole 6, the App's side: a plan file that first appears at a head loom produced (its own merge of
 * a stage branch) never runs without a person's approval, even on a pull request whose author may
 * run plans. The publish job refuses session commits that add plans; this holds when one gets in
 * anyway (a push to a stage branch by hand, a publish bypassed).
 */

const EVIL_PATH = "doc/plans/PLAN-evil.md";
const EVIL_PLAN = DIAMOND_PLAN.replace("# Plan: Diamond", "# Plan: Evil");

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

/**
 * alice (write) opens the diamond plan; stage `a` passes and loom merges it: the new head is loom's.
 * `mergeFiles`: what GitHub's merge answer lists (default: no files).
 */
async function mergeStageA(
  mergeFiles: Harness["fake"]["mergeFiles"] = null,
): Promise<{ harness: Harness; loomHead: string }> {
  const harness = await startHarness();
  harness.fake.mergeFiles = mergeFiles;
  await harness.receive(
    "pull_request",
    pullRequestPayload("opened", { number: 1, headSha: harness.headSha }),
  );
  const dispatch = harness.fake.dispatches.find((d) => d.inputs["stage_id"] === "a");
  assert.ok(dispatch, "stage a was dispatched");
  // The stage branch holds the commit the checks ran on (loom merges only that commit).
  harness.fake.refs.set("loom/pr-1/PLAN-diamond/a", passingResult("a").head_sha);
  await completeRun(harness, dispatch, passingResult("a"));
  assert.equal(harness.fake.merges.length, 1, "loom merged stage a");
  const loomHead = harness.fake.refs.get("feature/plan");
  assert.ok(loomHead !== undefined && loomHead !== harness.headSha);
  return { harness, loomHead };
}

/** The head `sha` holds both plans. */
function addEvilPlanAt(harness: Harness, sha: string): void {
  harness.fake.files.set(`${sha}:${PLAN_PATH}`, DIAMOND_PLAN);
  harness.fake.files.set(`${sha}:${EVIL_PATH}`, EVIL_PLAN);
  harness.fake.pullFiles.set(1, ["README.md", PLAN_PATH, EVIL_PATH]);
}

/** GitHub's webhook of loom's push of `loomHead` (made on the head alice opened). */
function receiveLoomPush(harness: Harness, loomHead: string): Promise<void> {
  return harness.receive(
    "pull_request",
    pullRequestPayload("synchronize", {
      number: 1,
      headSha: loomHead,
      before: harness.headSha,
      sender: { login: BOT, type: "Bot" },
    }),
  );
}

const evilDispatches = (harness: Harness) =>
  harness.fake.dispatches.filter((d) => d.inputs["plan_id"] === "PLAN-evil");
const evilPlanCheck = (harness: Harness) =>
  harness.fake.checkRuns.filter((r) => r["name"] === "loom: PLAN-evil").at(-1);

test("a plan that first appears at loom's own merge waits for a person's /loom approve, though the author may run plans", async () => {
  const { harness, loomHead } = await mergeStageA();
  h = harness;
  addEvilPlanAt(h, loomHead);
  await receiveLoomPush(h, loomHead);
  assert.deepEqual(evilDispatches(h), [], "nothing of the new plan runs");
  const check = evilPlanCheck(h);
  assert.ok(check, "the new plan has its check run");
  assert.deepEqual(
    (check["actions"] as { identifier: string }[] | undefined)?.map((a) => a.identifier),
    ["approve"],
    "a person can approve it",
  );
  const [record] = (await h.store.listPlansForPull("acme", "widgets", 1)).filter(
    (plan) => plan.key.planPath === EVIL_PATH,
  );
  assert.ok(record, "loom stored the new plan");
  assert.ok(
    h.fake.dispatches.some((d) => d.inputs["plan_id"] === "PLAN-diamond" && d.inputs["stage_id"] === "b"),
    "the plan the author opened goes on",
  );
});

test("a plan that comes in with loom's merge waits for a person also when GitHub's merge answer lists its files", async () => {
  // GitHub's answer to the merge lists what it changed: the new plan file among them.
  const { harness, loomHead } = await mergeStageA([
    { filename: "src/a.ts", status: "added" },
    { filename: EVIL_PATH, status: "added" },
  ]);
  h = harness;
  addEvilPlanAt(harness, loomHead);
  await receiveLoomPush(harness, loomHead);
  assert.deepEqual(evilDispatches(harness), [], "nothing of the new plan runs");
  assert.deepEqual(
    (evilPlanCheck(harness)?.["actions"] as { identifier: string }[] | undefined)?.map((a) => a.identifier),
    ["approve"],
  );
});

test("a running plan whose file changed in loom's own merge waits for a person's approval, with the reason, though its author may run plans", async () => {
  const { harness, loomHead } = await mergeStageA();
  h = harness;
  // A stage branch that got a plan edit in (publish refuses it; a bypass would not): the merge
  // brings the edited plan file to the pull request's head.
  const edited = DIAMOND_PLAN.replace("# Plan: Diamond", "# Plan: Diamond, rewritten by a session");
  assert.notEqual(edited, DIAMOND_PLAN);
  h.fake.files.set(`${loomHead}:${PLAN_PATH}`, edited);
  h.fake.pullFiles.set(1, ["README.md", PLAN_PATH]);
  await receiveLoomPush(h, loomHead);
  const [record] = (await h.store.listPlansForPull("acme", "widgets", 1)).filter(
    (plan) => plan.key.planPath === PLAN_PATH,
  );
  assert.ok(record);
  const { state } = readStoredPlan(record);
  assert.equal(state.plan.name, "Diamond, rewritten by a session", "the change is read at loom's head");
  assert.equal(state.trusted, false, "and the plan no longer runs on its author's trust");
  assert.equal(state.approvedSha, null);
  const check = h.fake.checkRuns.filter((r) => r["name"] === "loom: PLAN-diamond").at(-1);
  assert.deepEqual(
    (check?.["actions"] as { identifier: string }[] | undefined)?.map((a) => a.identifier),
    ["approve"],
    "a person can approve it on the plan's check run",
  );
  assert.match(
    JSON.stringify(check?.["output"] ?? {}),
    /the plan file changed in a commit loom made/,
    "the check run says why it waits",
  );
  // Stages b and c were dispatched on the merge; d, after both, waits for the approval.
  for (const id of ["b", "c"]) {
    const dispatch = h.fake.dispatches.find((d) => d.inputs["stage_id"] === id);
    assert.ok(dispatch, `${id} was dispatched before the change was seen`);
    h.fake.refs.set(`loom/pr-1/PLAN-diamond/${id}`, passingResult(id).head_sha);
    await completeRun(h, dispatch, passingResult(id));
  }
  assert.equal(
    h.fake.dispatches.filter((d) => d.inputs["stage_id"] === "d").length,
    0,
    "nothing more runs without a person",
  );
});

test("the same plan pushed by the pull request's author runs at once (the check above is about who produced the head)", async () => {
  const { harness, loomHead } = await mergeStageA();
  h = harness;
  const pushed = "f".repeat(40);
  h.fake.refs.set("feature/plan", pushed);
  addEvilPlanAt(h, pushed);
  await h.receive(
    "pull_request",
    pullRequestPayload("synchronize", { number: 1, headSha: pushed, before: loomHead }),
  );
  assert.ok(
    evilDispatches(h).some((d) => d.inputs["stage_id"] === "a"),
    "its root stage is dispatched",
  );
});

test("loom's merge SHA counts as loom's head whoever the webhook names as sender", async () => {
  const { harness, loomHead } = await mergeStageA();
  h = harness;
  addEvilPlanAt(h, loomHead);
  await h.receive(
    "pull_request",
    pullRequestPayload("synchronize", { number: 1, headSha: loomHead, before: h.headSha }),
  );
  assert.deepEqual(evilDispatches(h), [], "nothing of the new plan runs");
});

/** Closes the pull request at loom's head and reopens it there with `text` as the plan file. */
async function reopenAtLoomHead(harness: Harness, loomHead: string, text: string): Promise<number> {
  harness.fake.files.set(`${loomHead}:${PLAN_PATH}`, text);
  harness.fake.pullFiles.set(1, ["README.md", PLAN_PATH]);
  await harness.receive("pull_request", pullRequestPayload("closed", { number: 1, headSha: loomHead }));
  const before = harness.fake.dispatches.length;
  await harness.receive("pull_request", pullRequestPayload("reopened", { number: 1, headSha: loomHead }));
  return harness.fake.dispatches.length - before;
}

test("a pull request reopened at loom's head with the plan text that ran goes on without an approval", async () => {
  const { harness, loomHead } = await mergeStageA();
  h = harness;
  const dispatched = await reopenAtLoomHead(h, loomHead, DIAMOND_PLAN);
  assert.equal(dispatched, 2, "b and c, cancelled by the close, run again");
});

test("a pull request reopened at loom's head with other plan text waits for a person's approval", async () => {
  const { harness, loomHead } = await mergeStageA();
  h = harness;
  const changed = DIAMOND_PLAN.replace("name: Left", "name: Left, rewritten at loom's head");
  const dispatched = await reopenAtLoomHead(h, loomHead, changed);
  assert.equal(dispatched, 0, "nothing runs");
  const check = h.fake.checkRuns.filter((r) => r["name"] === "loom: PLAN-diamond").at(-1);
  assert.deepEqual(
    (check?.["actions"] as { identifier: string }[] | undefined)?.map((a) => a.identifier),
    ["approve"],
  );
});

test("a plan that first appeared at loom's head still waits for a person after the pull request is closed and reopened", async () => {
  const { harness, loomHead } = await mergeStageA();
  h = harness;
  addEvilPlanAt(h, loomHead);
  const sync = { number: 1, headSha: loomHead, before: h.headSha };
  await h.receive("pull_request", pullRequestPayload("synchronize", sync));
  await h.receive("pull_request", pullRequestPayload("closed", { number: 1, headSha: loomHead }));
  await h.receive("pull_request", pullRequestPayload("reopened", { number: 1, headSha: loomHead }));
  assert.deepEqual(evilDispatches(h), [], "nothing of the new plan runs");
});
