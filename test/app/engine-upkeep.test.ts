import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { delivery, pullRequestPayload } from "../support/webhook-payloads.ts";
import { loadInstance, startHarness } from "./loom-harness.ts";
import type { Harness } from "./loom-harness.ts";

/**
 * The engine's upkeep, as an operator relies on it: processed deliveries are remembered long
 * enough that GitHub's redelivery of one changes nothing, then forgotten; a restarted App takes
 * back at once what its previous process had claimed.
 */

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const DAY = 24 * 3600 * 1000;

test("a delivery redelivered within 14 days is not acted on again; the reconcile forgets deliveries older than that", async () => {
  let now = Date.UTC(2026, 10, 22, 0, 0, 0);
  h = await startHarness({ clock: () => now });
  const opened = pullRequestPayload("opened", { number: 1, headSha: h.headSha });
  await h.receive("pull_request", opened, "delivery-1");
  assert.equal(h.fake.dispatches.length, 1);
  assert.notEqual((await h.store.getDelivery("delivery-1"))?.completedAt ?? null, null, "processed");

  now += 13 * DAY;
  await h.engine.reconcile();
  assert.notEqual(await h.store.getDelivery("delivery-1"), null, "kept for 14 days");
  await h.receive("pull_request", opened, "delivery-1");
  assert.equal(h.fake.dispatches.length, 1, "the redelivery changes nothing");

  now += 2 * DAY;
  await h.engine.reconcile();
  assert.equal(await h.store.getDelivery("delivery-1"), null, "forgotten after 14 days");
  await h.finish();
  h = undefined;
});

test("an App restarted under its worker name takes back at once the delivery its previous process had claimed", async () => {
  const now = Date.UTC(2026, 10, 22, 0, 0, 0);
  h = await startHarness({ clock: () => now, workerId: "replica-1" });
  // The previous process recorded the webhook and claimed it (a 2-minute lease), then died.
  await h.probot.receive(
    delivery("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }), "d-1"),
  );
  const claimed = await h.store.claimDeliveries("replica-1", 10, 120_000, now);
  assert.deepEqual(
    claimed.map((item) => item.id),
    ["d-1"],
  );
  // Its restart, under the same name, at the same moment: the lease has not ended.
  const restarted = await loadInstance(h.store, "replica-1", () => now);
  restarted.engine.start({ pollMs: 3_600_000, reconcileMs: 3_600_000 });
  await restarted.engine.drain(); // after the start's release of old leases
  await restarted.engine.stop();
  assert.notEqual((await h.store.getDelivery("d-1"))?.completedAt ?? null, null, "processed");
  assert.equal(h.fake.dispatches.length, 1, "the plan opened and its root stage was dispatched");

  // Another worker name does not take a live worker's claims.
  await h.probot.receive(
    delivery("pull_request", pullRequestPayload("closed", { number: 1, headSha: h.headSha }), "d-2"),
  );
  await h.store.claimDeliveries("replica-1", 10, 120_000, now);
  const other = await loadInstance(h.store, "replica-2", () => now);
  other.engine.start({ pollMs: 3_600_000, reconcileMs: 3_600_000 });
  await other.engine.drain();
  await other.engine.stop();
  assert.equal((await h.store.getDelivery("d-2"))?.completedAt, null, "still replica-1's");
  await h.finish();
  h = undefined;
});
