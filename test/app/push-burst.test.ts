import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { FOLLOW_DELAY_MS } from "../../app/engine/apply-events.ts";
import { readStoredPlan } from "../../app/engine/stored-plan.ts";
import { createMetrics } from "../../app/metrics/create-metrics.ts";
import type { LoomMetrics } from "../../app/metrics/create-metrics.ts";
import type { PlanState } from "../../src/orchestrator/state.ts";
import { delivery, issueCommentPayload, pullRequestPayload } from "../support/webhook-payloads.ts";
import { nextSha } from "./fake-github.ts";
import {
  BOT,
  completeRun,
  DIAMOND_PLAN,
  failRun,
  PLAN_PATH,
  runWebhook,
  startHarness,
} from "./loom-harness.ts";
import type { Harness } from "./loom-harness.ts";
import { passingResult } from "./stage-results.ts";

/*
 * Issue 11, hole 9: cheap input cannot buy expensive work. Pushes are cheap for whoever pushes;
 * each `synchronize` costs loom reads (files, config, permission, plan) and check-run writes. GitHub
 * sends one `synchronize` per push, with `before` (the head before it) and the new head in
 * `pull_request.head.sha`; it promises no order, but the inbox keeps the order it recorded.
 */

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const fork = { author: { login: "mallory" }, headRepo: "mallory/widgets" };

async function planState(harness: Harness): Promise<PlanState> {
  const [plan] = await harness.store.listPlansForPull("acme", "widgets", 1);
  assert.ok(plan);
  return readStoredPlan(plan).state;
}

/** The requests made since `from`, with SHAs and ids left out: what kind of work they were. */
function requestsSince(harness: Harness, from: number): string[] {
  return harness.gh.requests
    .slice(from)
    .map((r) => `${r.method} ${r.path.replaceAll(/[0-9a-f]{40}/g, "<sha>").replaceAll(/\d+/g, "<n>")}`);
}

/** `count` pushes, one after the other, starting from the current head; returns the new heads. */
function push(harness: Harness, count: number): { before: string; head: string }[] {
  const pushes: { before: string; head: string }[] = [];
  for (let n = 0; n < count; n += 1) {
    const before = harness.fake.refs.get("feature/plan") ?? "";
    const head = nextSha();
    harness.fake.refs.set("feature/plan", head);
    harness.fake.files.set(`${head}:${PLAN_PATH}`, DIAMOND_PLAN);
    pushes.push({ before, head });
  }
  return pushes;
}

async function recordPushes(
  harness: Harness,
  pushes: { before: string; head: string }[],
  sender: Record<string, unknown> = {},
): Promise<void> {
  for (const { before, head } of pushes)
    await harness.probot.receive(
      delivery(
        "pull_request",
        pullRequestPayload("synchronize", { number: 1, headSha: head, before, ...sender }),
      ),
    );
}

/** Opens the diamond plan, then records `count` pushes before loom processes any; what they cost. */
async function costOfPushes(
  count: number,
): Promise<{ harness: Harness; requests: string[]; last: string; metrics: LoomMetrics }> {
  const metrics = createMetrics({
    store: { countBacklog: () => Promise.resolve({ deliveries: 0, effects: 0, timers: 0 }) },
    defaultMetrics: false,
  });
  // A clock that stands still: the plan's own timers (a dispatched stage's look-ups) fall due
  // alike however many deliveries were recorded. It moves once, for check runs to follow the head.
  let now = Date.UTC(2026, 10, 22);
  const harness = await startHarness({ clock: () => now, metrics });
  h = harness;
  harness.fake.files.set("main:.github/loom.yml", "rename_plans: false\n");
  await harness.receive(
    "pull_request",
    pullRequestPayload("opened", { number: 1, headSha: harness.headSha }),
  );
  const from = harness.gh.requests.length;
  const pushes = push(harness, count);
  await recordPushes(harness, pushes);
  assert.equal(harness.gh.requests.length, from, "recording reads nothing from GitHub");
  await harness.engine.drain();
  now += FOLLOW_DELAY_MS;
  await harness.engine.drain();
  return { harness, requests: requestsSince(harness, from), last: pushes.at(-1)!.head, metrics };
}

test("a burst of 100 pushes recorded before loom gets to them costs the GitHub requests of one push and ends at the last head", async () => {
  const one = await costOfPushes(1);
  assert.ok(one.requests.length > 0, "a push costs some requests");
  await one.harness.finish();
  h = undefined;

  const burst = await costOfPushes(100);
  // The last push was made on a head loom never saw (the 99 before it were coalesced away): one
  // compare tells it is not a late webhook of an older push.
  const compares = burst.requests.filter((r) => r.includes("/compare/"));
  assert.equal(compares.length, 1);
  assert.deepEqual(
    burst.requests.filter((r) => !r.includes("/compare/")),
    one.requests,
    "100 pushes cost what one push costs, and one compare",
  );
  assert.equal((await planState(burst.harness)).pr.headSha, burst.last, "the plan is at the last head");
  const heads = new Set(burst.harness.fake.checkRuns.map((r) => String(r["head_sha"])));
  assert.deepEqual(
    [...heads].filter((sha) => sha !== burst.harness.headSha),
    [burst.last],
    "check runs only on the first and the last head",
  );
  assert.equal((await burst.harness.store.countBacklog()).deliveries, 0, "every push is done with");
  const counted = (await burst.metrics.deliveriesProcessed.get()).values;
  assert.deepEqual(
    counted.map((v) => [v.labels.outcome, v.value]),
    [
      ["processed", 2],
      ["superseded", 99],
    ],
    "the opening and the last push processed, 99 pushes counted as superseded",
  );
  await burst.harness.finish();
  h = undefined;
});

test("a burst of pushes onto an approved fork plan costs one read and one check run, and needs a new approval of the last head", async () => {
  h = await startHarness();
  h.fake.files.set("main:.github/loom.yml", "rename_plans: false\n");
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha, ...fork }));
  await h.receive(
    "issue_comment",
    issueCommentPayload({ number: 1, body: "/loom approve", sender: { login: "alice" } }),
  );
  assert.equal((await planState(h)).approvedSha, h.headSha);
  const dispatched = h.fake.dispatches.length;
  const checkRuns = h.gh.find("POST", "/repos/acme/widgets/check-runs").length;
  const reads = h.gh.find("GET", "/repos/acme/widgets/pulls/1/files").length;

  const burst = push(h, 5);
  await recordPushes(h, burst, fork);
  await h.engine.drain();
  const state = await planState(h);
  assert.equal(state.pr.headSha, burst.at(-1)!.head);
  assert.equal(state.approvedSha, null, "the approval of the old head does not carry over");
  assert.equal(h.fake.dispatches.length, dispatched, "nothing new runs unapproved");
  assert.equal(
    h.gh.find("POST", "/repos/acme/widgets/check-runs").length - checkRuns,
    1,
    "one check run, on the last head, asks for the approval",
  );
  assert.equal(h.gh.find("GET", "/repos/acme/widgets/pulls/1/files").length - reads, 1, "read once");
  await h.finish();
  h = undefined;
});

async function finishRun(harness: Harness, stageId: string): Promise<void> {
  const dispatch = harness.fake.dispatches.find((d) => d.inputs["stage_id"] === stageId);
  assert.ok(dispatch, `${stageId} was dispatched`);
  harness.fake.finishRun(dispatch.runId, "success", passingResult(stageId));
  await harness.receive("workflow_run", runWebhook(dispatch, "completed"));
}

test("loom's own merges pushed in a burst are each judged: an approved plan stays approved", async () => {
  h = await startHarness();
  h.fake.files.set("main:.github/loom.yml", "rename_plans: false\n");
  // mallory may not write: her plan (on a branch of the repository itself) waits for approval.
  await h.receive(
    "pull_request",
    pullRequestPayload("opened", { number: 1, headSha: h.headSha, author: { login: "mallory" } }),
  );
  await h.receive(
    "issue_comment",
    issueCommentPayload({ number: 1, body: "/loom approve", sender: { login: "alice" } }),
  );
  const heads = [h.headSha];
  for (const stage of ["a", "b", "c"]) {
    await finishRun(h, stage);
    heads.push(h.fake.refs.get("feature/plan") ?? "");
  }
  assert.equal(new Set(heads).size, 4, "three merges, three new heads");
  const merges = heads.slice(1).map((head, n) => ({ before: heads[n] ?? "", head }));
  for (const { head } of merges) h.fake.files.set(`${head}:${PLAN_PATH}`, DIAMOND_PLAN);
  await recordPushes(h, merges, { sender: { login: BOT, type: "Bot" } });
  await h.engine.drain();
  const state = await planState(h);
  assert.equal(state.pr.headSha, heads[3]);
  assert.equal(state.approvedSha, heads[3], "the approval follows loom's own merges");
  await h.finish();
  h = undefined;
});

test("a push's webhook that comes after a later push's is late: the head does not move back, at the cost of one compare", async () => {
  h = await startHarness();
  h.fake.files.set("main:.github/loom.yml", "rename_plans: false\n");
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));
  const [first, second] = push(h, 2);
  assert.ok(first && second);
  // GitHub's history of the branch: the opened head, then the two pushes.
  const history = [h.headSha, first.head, second.head];
  h.fake.compare = (base, head) => {
    const [b, x] = [history.indexOf(base), history.indexOf(head)];
    return x === b ? "identical" : x > b ? "ahead" : "behind";
  };
  await h.receive(
    "pull_request",
    pullRequestPayload("synchronize", { number: 1, headSha: second.head, before: second.before }),
  );
  assert.equal((await planState(h)).pr.headSha, second.head);
  const from = h.gh.requests.length;
  const runsBefore = h.fake.checkRuns.length;
  await h.receive(
    "pull_request",
    pullRequestPayload("synchronize", { number: 1, headSha: first.head, before: first.before }),
  );
  assert.equal((await planState(h)).pr.headSha, second.head, "the head stays the newest push");
  assert.equal(h.fake.checkRuns.length, runsBefore, "no check run moved back to the older head");
  assert.deepEqual(
    requestsSince(h, from).filter((r) => r.startsWith("GET") && r.includes("/compare/")),
    ["GET /repos/acme/widgets/compare/<sha>...<sha>?per_page=<n>"],
  );
  await h.finish();
  h = undefined;
});

test("two head moves within the follow delay move a stuck stage's check run once, to the last head", async () => {
  let now = Date.UTC(2026, 10, 22);
  h = await startHarness({ clock: () => now });
  h.fake.files.set("main:.github/loom.yml", "rename_plans: false\n");
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));
  const dispatch = h.fake.dispatches.find((d) => d.inputs["stage_id"] === "a");
  assert.ok(dispatch);
  await failRun(h, dispatch, passingResult("a"));
  const runsOfA = () => h!.fake.checkRuns.filter((r) => r["name"] === "loom: a");
  assert.deepEqual(
    runsOfA().map((r) => [r["head_sha"], r["conclusion"]]),
    [[h.headSha, "failure"]],
  );
  const [first, second] = push(h, 2);
  assert.ok(first && second);
  await h.receive(
    "pull_request",
    pullRequestPayload("synchronize", { number: 1, headSha: first.head, before: first.before }),
  );
  now += FOLLOW_DELAY_MS / 2;
  await h.receive(
    "pull_request",
    pullRequestPayload("synchronize", { number: 1, headSha: second.head, before: second.before }),
  );
  assert.deepEqual(
    runsOfA().map((r) => r["head_sha"]),
    [h.headSha],
    "a's run has not moved yet",
  );
  now += FOLLOW_DELAY_MS / 2;
  await h.engine.drain();
  assert.deepEqual(
    runsOfA().map((r) => [r["head_sha"], r["conclusion"]]),
    [
      [h.headSha, "failure"],
      [second.head, "failure"],
    ],
    "moved once, from the first head to the last; the head between got none",
  );
  await h.finish();
  h = undefined;
});

test("a running stage's check run stays where it is when the head moves, and moves to the head with its next news", async () => {
  let now = Date.UTC(2026, 10, 22);
  h = await startHarness({ clock: () => now });
  h.fake.files.set("main:.github/loom.yml", "rename_plans: false\n");
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));
  const runsOfA = () => h!.fake.checkRuns.filter((r) => r["name"] === "loom: a");
  const [moved] = push(h, 1);
  assert.ok(moved);
  const from = h.gh.requests.length;
  await h.receive(
    "pull_request",
    pullRequestPayload("synchronize", { number: 1, headSha: moved.head, before: moved.before }),
  );
  now += FOLLOW_DELAY_MS;
  await h.engine.drain();
  assert.deepEqual(
    runsOfA().map((r) => [r["head_sha"], r["status"]]),
    [[h.headSha, "in_progress"]],
    "a runs on: its run is not re-created for the move alone",
  );
  const [aRun] = runsOfA();
  assert.ok(aRun);
  const checkRunWrites = h.gh.requests
    .slice(from)
    .filter((r) => r.method !== "GET" && r.path.includes("/check-runs"));
  assert.ok(
    !checkRunWrites.some((r) => r.path.endsWith(`/check-runs/${String(aRun["id"])}`)),
    "a's run is not touched",
  );
  assert.deepEqual(
    checkRunWrites.filter((r) => r.method === "POST").map((r) => (r.body as { name?: string }).name),
    ["loom: PLAN-diamond"],
    "only the plan's check run follows the head",
  );
  // The run starts on its runner: news of a, written on the head the pull request has now.
  const dispatch = h.fake.dispatches.find((d) => d.inputs["stage_id"] === "a");
  assert.ok(dispatch);
  await h.receive("workflow_run", runWebhook(dispatch, "in_progress"));
  now += FOLLOW_DELAY_MS;
  await h.engine.drain();
  assert.deepEqual(
    runsOfA().map((r) => [r["head_sha"], r["status"], r["conclusion"]]),
    [
      [h.headSha, "completed", "neutral"],
      [moved.head, "in_progress", undefined],
    ],
    "a's run moved to the head with its news; the old one says where it went",
  );
  await h.finish();
  h = undefined;
});

test("loom's own merges landing within the follow delay move the plan's check run once, and write the status comment once", async () => {
  let now = Date.UTC(2026, 10, 22);
  h = await startHarness({ clock: () => now });
  h.fake.files.set("main:.github/loom.yml", "rename_plans: false\n");
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));
  const dispatchOf = (id: string) => {
    const found = h!.fake.dispatches.find((d) => d.inputs["stage_id"] === id);
    assert.ok(found, `${id} dispatched`);
    return found;
  };
  const planRuns = () =>
    h!.fake.checkRuns
      .filter((r) => r["name"] === "loom: PLAN-diamond")
      .map((r) => [r["head_sha"], r["status"], r["conclusion"]]);
  await completeRun(h, dispatchOf("a"), passingResult("a"));
  now += FOLLOW_DELAY_MS;
  await h.engine.drain();
  const afterA = h.fake.refs.get("feature/plan");
  assert.notEqual(afterA, h.headSha, "a merged: the head moved");
  assert.deepEqual(
    planRuns().at(-1),
    [afterA, "in_progress", undefined],
    "the plan's run followed a's merge",
  );

  const from = h.gh.requests.length;
  const runsBefore = planRuns();
  await completeRun(h, dispatchOf("b"), passingResult("b"));
  await completeRun(h, dispatchOf("c"), passingResult("c"));
  const last = h.fake.refs.get("feature/plan");
  assert.deepEqual(
    h.fake.merges.filter((m) => m.status === 201).map((m) => m.head.split("/").at(-1)),
    ["a", "b", "c"],
  );
  assert.ok(dispatchOf("d"), "d starts at once: progress never waits for the plan's run");
  assert.deepEqual(planRuns(), runsBefore, "within the delay the plan's run has not moved");
  now += FOLLOW_DELAY_MS;
  await h.engine.drain();
  const writes = h.gh.requests.slice(from).filter((r) => r.method !== "GET");
  const planRunIds = new Set(
    h.fake.checkRuns
      .filter((r) => r["name"] === "loom: PLAN-diamond")
      .map((r) => `/check-runs/${String(r["id"])}`),
  );
  const planRunWrites = writes.filter(
    (r) =>
      (r.method === "POST" && (r.body as { name?: string }).name === "loom: PLAN-diamond") ||
      (r.method === "PATCH" && [...planRunIds].some((id) => r.path.endsWith(id))),
  );
  assert.equal(planRunWrites.length, 2, "two merges, one move: the run on a's head superseded, one created");
  assert.deepEqual(
    planRuns().map(([sha, status]) => [sha, status]),
    [
      ...runsBefore.slice(0, -1).map(([sha, status]) => [sha, status]),
      [afterA, "completed"],
      [last, "in_progress"],
    ],
    "no plan run on the head between the two merges",
  );
  assert.equal(
    writes.filter((r) => r.method === "PATCH" && /\/issues\/comments\/\d+$/.test(r.path)).length,
    1,
    "the status comment is written once for both merges",
  );
  await h.finish();
  h = undefined;
});
