import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { pullRequestPayload } from "../support/webhook-payloads.ts";
import { startHarness } from "./loom-harness.ts";
import type { Harness } from "./loom-harness.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const MINUTE = 60_000;

/** The newest check run of `name` as the fake holds it (updates change it in place). */
function checkRun(harness: Harness, name: string): { status: string; summary: string; text: string } {
  const run = harness.fake.checkRuns.filter((r) => r["name"] === name).at(-1) ?? {};
  const output = (run["output"] ?? {}) as { summary?: string; text?: string };
  return { status: String(run["status"]), summary: output.summary ?? "", text: output.text ?? "" };
}

/**
 * Issue 14 item 7 through the real App (webhooks in, requests out, the App's clock moved): a run
 * GitHub keeps queued because no runner picks it up. Defaults: notice after 5 minutes, cancel after
 * 60, one fresh attempt, then a person.
 */
test("a dispatched run no runner picks up: shown waiting for a runner, cancelled and retried once, then waits for a person with the reason", async () => {
  let now = Date.UTC(2026, 10, 26, 9, 0, 0);
  h = await startHarness({ clock: () => now });
  const harness = h;
  await harness.receive(
    "pull_request",
    pullRequestPayload("opened", { number: 1, headSha: harness.headSha }),
  );
  const [first] = harness.fake.dispatches;
  assert.ok(first);
  harness.fake.runs.set(first.runId, { status: "queued", conclusion: null, result: null });

  now += 2 * MINUTE;
  await harness.engine.reconcile();
  assert.doesNotMatch(
    checkRun(harness, "loom: a").summary + checkRun(harness, "loom: a").text,
    /waiting for a runner/,
  );

  now += 4 * MINUTE;
  await harness.engine.reconcile();
  const noticed = checkRun(harness, "loom: a");
  assert.match(
    noticed.summary + noticed.text,
    /waiting for a runner: no runner has picked up run #\d+ for 6 min/,
  );
  assert.deepEqual(harness.fake.cancelled, [], "the notice cancels nothing");

  now += 55 * MINUTE;
  await harness.engine.reconcile();
  assert.deepEqual(harness.fake.cancelled, [first.runId], "cancelled at 60 minutes, as GitHub's Cancel does");
  now += 5 * MINUTE;
  await harness.engine.drain();
  const retries = harness.fake.dispatches.filter((d) => d.inputs["stage_id"] === "a");
  assert.deepEqual(
    retries.map((d) => d.inputs["attempt"]),
    ["1", "2"],
    "dispatched once more as a fresh session",
  );
  const second = retries[1];
  assert.ok(second);
  harness.fake.runs.set(second.runId, { status: "queued", conclusion: null, result: null });

  now += 61 * MINUTE;
  await harness.engine.reconcile();
  now += 10 * MINUTE;
  await harness.engine.drain();
  assert.deepEqual(harness.fake.cancelled, [first.runId, second.runId]);
  assert.equal(
    harness.fake.dispatches.filter((d) => d.inputs["stage_id"] === "a").length,
    2,
    "no third attempt without a person",
  );
  const stuck = checkRun(harness, "loom: a");
  assert.equal(stuck.status, "completed");
  assert.match(
    stuck.summary + stuck.text,
    /no runner picked up attempts 1 and 2 \(60 min each\): check the runners for the stage workflow's runs-on, then ['`]\/loom retry a['`]/,
  );
  await harness.finish();
  h = undefined;
});
