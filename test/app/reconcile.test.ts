import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { pullRequestPayload } from "../support/webhook-payloads.ts";
import { DIAMOND_PLAN, runWebhook, startHarness } from "./loom-harness.ts";
import type { Harness } from "./loom-harness.ts";
import { passingResult } from "./stage-results.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

test("a finished run whose webhook never came is picked up by the next reconcile", async () => {
  h = await startHarness();
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));
  const [dispatch] = h.fake.dispatches;
  assert.ok(dispatch);
  h.fake.finishRun(dispatch.runId, "success", passingResult("a"));
  await h.engine.reconcile();
  assert.deepEqual(
    h.fake.merges.map((m) => m.head),
    ["loom/pr-1/PLAN-diamond/a"],
  );
  assert.deepEqual(h.fake.dispatches.map((d) => d.inputs["stage_id"]).sort(), ["a", "b", "c"]);
  await h.finish();
  h = undefined;
});

test("a session silent past the heartbeat timeout is cancelled and retried as a recovery session", async () => {
  let now = Date.UTC(2026, 10, 22, 1, 0, 0);
  h = await startHarness({ clock: () => now });
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));
  const [dispatch] = h.fake.dispatches;
  assert.ok(dispatch);
  now += 60_000;
  await h.engine.reconcile();
  assert.deepEqual(h.fake.cancelled, [], "a quiet minute is fine");
  now += 301_000;
  await h.engine.reconcile();
  assert.deepEqual(h.fake.cancelled, [dispatch.runId]);
  assert.equal(h.fake.dispatches.length, 1, "the retry waits for its backoff");
  now += 31_000;
  await h.engine.drain();
  assert.deepEqual(
    h.fake.dispatches.map((d) => [d.inputs["stage_id"], d.inputs["attempt"], d.inputs["kind"]]),
    [
      ["a", "1", "stage"],
      ["a", "2", "recovery"],
    ],
  );
  await h.finish();
  h = undefined;
});

test("a running stage's heartbeats are read once its silence reaches half the heartbeat timeout, not on every reconcile", async () => {
  let now = Date.UTC(2026, 10, 26, 1, 0, 0);
  h = await startHarness({ clock: () => now });
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));
  const [dispatch] = h.fake.dispatches;
  assert.ok(dispatch);
  const harness = h;
  const listings = () =>
    harness.gh.requests.filter(
      (r) => r.method === "GET" && r.path.includes(`/actions/runs/${dispatch.runId}/artifacts`),
    ).length;
  now += 60_000;
  await h.engine.reconcile(); // the run is in progress: the session runs, seen now
  const started = listings();
  for (let minute = 1; minute <= 2; minute++) {
    now += 60_000;
    await h.engine.reconcile();
  }
  assert.equal(
    listings(),
    started,
    "two minutes after it was last seen (the timeout is 5): only its run is read",
  );
  now += 60_000;
  await h.engine.reconcile();
  assert.equal(listings(), started + 1, "three minutes: past half the timeout, its heartbeats are read");
  assert.deepEqual(h.fake.cancelled, [], "a session read in time is not judged hung");
  await h.finish();
  h = undefined;
});

test("a push and a close whose webhooks never came are picked up by the reconcile", async () => {
  h = await startHarness();
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));
  const pushed = "d".repeat(40);
  h.fake.refs.set("feature/plan", pushed);
  h.fake.files.set(
    `${pushed}:doc/plans/PLAN-diamond.md`,
    h.fake.files.get(`${h.headSha}:doc/plans/PLAN-diamond.md`) ?? "",
  );
  await h.engine.reconcile();
  const onNewHead = h.fake.checkRuns.filter((r) => r["head_sha"] === pushed).map((r) => r["name"]);
  assert.ok(onNewHead.includes("loom: a"), "check runs follow the head");
  h.fake.pullState = "closed";
  await h.engine.reconcile();
  assert.deepEqual(h.fake.cancelled, [h.fake.dispatches[0]?.runId], "the running session is cancelled");
  assert.deepEqual(await h.store.listActivePlans(), []);
  assert.equal(h.fake.dispatches.length, 1);
  await h.finish();
  h = undefined;
});

/** The diamond opened on `clock` and its root stage's run started; returns that run's id. */
async function startRoot(harness: Harness): Promise<number> {
  await harness.receive(
    "pull_request",
    pullRequestPayload("opened", { number: 1, headSha: harness.headSha }),
  );
  const [dispatch] = harness.fake.dispatches;
  assert.ok(dispatch);
  await harness.receive("workflow_run", runWebhook(dispatch, "in_progress"));
  return dispatch.runId;
}

const HEARTBEAT_TIMEOUT_MS = 300_000;

test("a silent session is judged hung at its heartbeat deadline by the plan's own timer, with no reconcile", async () => {
  let now = Date.UTC(2026, 10, 27, 1, 0, 0);
  h = await startHarness({ clock: () => now });
  const runId = await startRoot(h);
  now += HEARTBEAT_TIMEOUT_MS - 1_000;
  await h.engine.drain();
  assert.deepEqual(h.fake.cancelled, [], "not before its deadline");
  now += 1_000;
  await h.engine.drain();
  assert.deepEqual(h.fake.cancelled, [runId], "cancelled at the deadline, read first: no newer heartbeat");
  await h.finish();
  h = undefined;
});

test("a session that beat since loom last looked is read at its deadline and keeps running; its deadline moves", async () => {
  let now = Date.UTC(2026, 10, 27, 1, 0, 0);
  h = await startHarness({ clock: () => now });
  const runId = await startRoot(h);
  h.fake.beat(runId, now + 200_000);
  now += HEARTBEAT_TIMEOUT_MS;
  await h.engine.drain();
  assert.deepEqual(h.fake.cancelled, [], "its heartbeat of 100 s ago was read before judging");
  now += HEARTBEAT_TIMEOUT_MS - 1_000;
  await h.engine.drain();
  assert.deepEqual(h.fake.cancelled, [], "its deadline is now a timeout after loom saw that heartbeat");
  now += 1_000;
  await h.engine.drain();
  assert.deepEqual(h.fake.cancelled, [runId], "silent for the timeout since: hung");
  await h.finish();
  h = undefined;
});

test("a session whose heartbeats GitHub cannot list at its deadline is not judged until GitHub answers", async () => {
  let now = Date.UTC(2026, 10, 27, 1, 0, 0);
  h = await startHarness({ clock: () => now });
  const runId = await startRoot(h);
  h.fake.faults.push({
    method: "GET",
    path: /\/actions\/runs\/\d+\/artifacts$/,
    status: 502,
    times: Infinity,
  });
  now += HEARTBEAT_TIMEOUT_MS;
  await h.engine.drain();
  now += 30_000;
  await h.engine.drain();
  assert.deepEqual(h.fake.cancelled, [], "silence loom could not check is not a hang");
  h.fake.faults.length = 0;
  h.fake.beat(runId, now);
  now += 31_000; // the timer's lease, taken at the deadline, has ended
  await h.engine.drain();
  assert.deepEqual(h.fake.cancelled, [], "read once GitHub answered: it is alive");
  now += HEARTBEAT_TIMEOUT_MS - 1_000;
  await h.engine.drain();
  assert.deepEqual(h.fake.cancelled, [], "seen then: its deadline moved");
  now += 1_000;
  await h.engine.drain();
  assert.deepEqual(h.fake.cancelled, [runId]);
  await h.finish();
  h = undefined;
});

test("a retry coming due reads nothing from GitHub, though another stage is running", async () => {
  let now = Date.UTC(2026, 10, 27, 2, 0, 0);
  const twoRoots = DIAMOND_PLAN.replace(
    'dependencies: [a]\n      acceptance: ["npm test"]\n    - id: c',
    'dependencies: []\n      acceptance: ["npm test"]\n    - id: c',
  );
  h = await startHarness({ clock: () => now, planText: twoRoots });
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));
  const [a, b] = ["a", "b"].map((id) => h?.fake.dispatches.find((d) => d.inputs["stage_id"] === id));
  assert.ok(a && b, "two roots dispatched");
  await h.receive("workflow_run", runWebhook(b, "in_progress"));
  await h.receive("workflow_run", runWebhook(a, "completed", "failure"));
  const runReads = () =>
    h?.gh.requests.filter((r) => r.method === "GET" && r.path.includes("/actions/runs/")).length ?? 0;
  const before = runReads();
  now += 60_000; // a's backoff (30 s) is over; b is well within its heartbeat timeout
  await h.engine.drain();
  assert.equal(h.fake.dispatches.filter((d) => d.inputs["stage_id"] === "a").length, 2, "a was retried");
  assert.equal(runReads(), before, "no run or heartbeat read: nothing was due to be judged");
  await h.finish();
  h = undefined;
});
