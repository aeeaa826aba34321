import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { TestContext } from "node:test";
import type { Store } from "../../app/store/store.ts";
import { planKey } from "./plan-key-fixture.ts";

/** Deliveries, timers and migrations: part of `describeStoreContract`. */
export function describeInboxContract(open: (t: TestContext) => Promise<Store>): void {
  describe("inbox", () => {
    it("records a delivery once and ignores the same X-GitHub-Delivery again", async (t) => {
      const store = await open(t);
      assert.equal(
        await store.recordDelivery({
          id: "d1",
          name: "pull_request",
          payload: { action: "opened" },
          receivedAt: 1,
        }),
        true,
      );
      assert.equal(
        await store.recordDelivery({
          id: "d1",
          name: "pull_request",
          payload: { action: "changed" },
          receivedAt: 2,
        }),
        false,
      );
      const claimed = await store.claimDeliveries("w", 10, 1000, 5);
      assert.deepEqual(claimed, [
        {
          id: "d1",
          name: "pull_request",
          payload: { action: "opened" },
          receivedAt: 1,
          attempts: 1,
          leaseUntil: 1005,
          lastError: null,
        },
      ]);
    });

    it("records a burst of deliveries arriving at once, each id once, and tells the caller that recorded it", async (t) => {
      const store = await open(t);
      const ids = ["b1", "b2", "b1", "b3", "b2"];
      const fresh = await Promise.all(
        ids.map((id, n) =>
          store.recordDelivery({ id, name: "issue_comment", payload: { n }, receivedAt: n }),
        ),
      );
      // Of two calls with one id, exactly one recorded it (on PostgreSQL either may win the race).
      const winners = new Map(ids.flatMap((id, n) => (fresh[n] ? [[id, n] as const] : [])));
      assert.equal(fresh.filter(Boolean).length, 3);
      assert.deepEqual([...winners.keys()].sort(), ["b1", "b2", "b3"]);
      const claimed = await store.claimDeliveries("w", 10, 1000, 10);
      assert.deepEqual(
        claimed.map((d) => [d.id, d.payload]).sort(),
        [...winners].map(([id, n]) => [id, { n }]).sort(),
        "each stored delivery is the one its caller was told it recorded",
      );
    });

    it("parks a failed delivery until its next attempt with its error, while later ones flow", async (t) => {
      const store = await open(t);
      for (const id of ["d1", "d2"])
        await store.recordDelivery({ id, name: "workflow_run", payload: id, receivedAt: 1 });
      const [first] = await store.claimDeliveries("w", 1, 60_000, 10);
      assert.equal(first?.id, "d1");
      assert.equal(await store.failDelivery("d1", "GitHub answered 502", 5_000), true);
      // The lease is gone, but d1 waits for 5000: d2 is handed out meanwhile.
      assert.deepEqual(
        (await store.claimDeliveries("w", 10, 60_000, 20)).map((d) => d.id),
        ["d2"],
      );
      assert.deepEqual(await store.claimDeliveries("w", 10, 60_000, 4_999), []);
      assert.deepEqual(await store.getDelivery("d1"), {
        id: "d1",
        name: "workflow_run",
        receivedAt: 1,
        attempts: 1,
        lastError: "GitHub answered 502",
        availableAt: 5_000,
        completedAt: null,
        error: null,
      });
      const [again] = await store.claimDeliveries("other", 10, 60_000, 5_000);
      assert.deepEqual([again?.id, again?.attempts, again?.lastError], ["d1", 2, "GitHub answered 502"]);
      await store.completeDelivery("d1", 6_000, "gave up after 2 attempts: GitHub answered 502");
      assert.equal(
        await store.failDelivery("d1", "late", 7_000),
        false,
        "a completed delivery stays completed",
      );
      assert.deepEqual(await store.getDelivery("d1").then((d) => d && [d.completedAt, d.error]), [
        6_000,
        "gave up after 2 attempts: GitHub answered 502",
      ]);
      assert.equal(await store.getDelivery("never"), null);
    });

    it("records loom's own parked work due later, with the error that parked it", async (t) => {
      const store = await open(t);
      await store.recordDelivery({
        id: "parked",
        name: "loom.events",
        payload: { events: [] },
        receivedAt: 10,
        availableAt: 100,
        lastError: "lost the compare-and-swap 20 times",
      });
      await store.recordDelivery({ id: "webhook", name: "pull_request", payload: null, receivedAt: 11 });
      assert.deepEqual(
        (await store.claimDeliveries("w", 10, 1000, 99)).map((d) => d.id),
        ["webhook"],
      );
      const [parked] = await store.claimDeliveries("w", 10, 1000, 100);
      assert.deepEqual(
        [parked?.id, parked?.attempts, parked?.lastError],
        ["parked", 1, "lost the compare-and-swap 20 times"],
      );
    });

    it("hands out deliveries oldest first, leased, and never again once completed", async (t) => {
      const store = await open(t);
      for (const id of ["d1", "d2", "d3"])
        await store.recordDelivery({ id, name: "issue_comment", payload: id, receivedAt: 1 });
      assert.deepEqual(
        (await store.claimDeliveries("one", 2, 1000, 0)).map((d) => d.id),
        ["d1", "d2"],
      );
      assert.deepEqual(
        (await store.claimDeliveries("two", 10, 1000, 10)).map((d) => d.id),
        ["d3"],
      );
      await store.completeDelivery("d1", 20);
      await store.completeDelivery("d3", 20, "gave up: bad payload");
      assert.deepEqual(await store.claimDeliveries("two", 10, 1000, 999), []);
      assert.deepEqual(
        (await store.claimDeliveries("two", 10, 1000, 1000)).map((d) => [d.id, d.attempts]),
        [["d2", 2]],
      );
    });

    it("prunes only completed deliveries older than the cut-off", async (t) => {
      const store = await open(t);
      for (const id of ["old", "new", "open"])
        await store.recordDelivery({ id, name: "x", payload: null, receivedAt: 1 });
      await store.completeDelivery("old", 100);
      await store.completeDelivery("new", 300);
      assert.equal(await store.pruneDeliveries(200), 1);
      assert.equal(await store.recordDelivery({ id: "new", name: "x", payload: null, receivedAt: 2 }), false);
      assert.equal(await store.recordDelivery({ id: "old", name: "x", payload: null, receivedAt: 2 }), true);
      assert.deepEqual(
        (await store.claimDeliveries("w", 10, 1000, 0)).map((d) => d.id),
        ["open", "old"],
      );
    });
  });

  describe("timers", () => {
    it("fires a timer when due, leases it, and deletes it once handled", async (t) => {
      const store = await open(t);
      await store.commitPlan(planKey(1), {
        expectedVersion: 0,
        state: 1,
        active: true,
        effects: [],
        timers: [
          { key: "heartbeat:a", at: 100 },
          { key: "retry:b", at: 50 },
        ],
      });
      assert.deepEqual(await store.claimDueTimers("w", 49, 10, 1000), []);
      const due = await store.claimDueTimers("w", 100, 10, 1000);
      assert.deepEqual(due, [
        { planKey: planKey(1), key: "retry:b", at: 50 },
        { planKey: planKey(1), key: "heartbeat:a", at: 100 },
      ]);
      assert.deepEqual(await store.claimDueTimers("other", 200, 10, 1000), []);
      assert.equal(await store.deleteTimer(due[0]!), true);
      assert.deepEqual(
        (await store.claimDueTimers("other", 1100, 10, 1000)).map((d) => d.key),
        ["heartbeat:a"],
      );
    });

    it("keeps a timer re-set by a later commit when the old firing is deleted, and cancels on request", async (t) => {
      const store = await open(t);
      await store.commitPlan(planKey(1), {
        expectedVersion: 0,
        state: 1,
        active: true,
        effects: [],
        timers: [
          { key: "hb", at: 10 },
          { key: "x", at: 10 },
        ],
      });
      const [fired] = await store.claimDueTimers("w", 10, 1, 1000);
      assert.equal(fired?.key, "hb");
      await store.commitPlan(planKey(1), {
        expectedVersion: 1,
        state: 2,
        active: true,
        effects: [],
        timers: [{ key: "hb", at: 20 }],
        cancelTimers: ["x"],
      });
      assert.equal(await store.deleteTimer(fired), false);
      assert.deepEqual(await store.claimDueTimers("w", 19, 10, 1000), []);
      assert.deepEqual(await store.claimDueTimers("w", 20, 10, 1000), [
        { planKey: planKey(1), key: "hb", at: 20 },
      ]);
    });
  });

  describe("schema", () => {
    it("migrates again without losing data", async (t) => {
      const store = await open(t);
      await store.commitPlan(planKey(1), {
        expectedVersion: 0,
        state: "kept",
        active: true,
        effects: [],
        timers: [],
      });
      await store.migrate();
      await store.migrate();
      assert.equal((await store.getPlan(planKey(1)))?.state, "kept");
    });
  });
}
