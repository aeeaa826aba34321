import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { pullRequestPayload } from "../support/webhook-payloads.ts";
import { startHarness } from "./loom-harness.ts";
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
