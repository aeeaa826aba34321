import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { TestContext } from "node:test";
import type { Store } from "../../app/store/store.ts";
import { planKey } from "./plan-key-fixture.ts";

/** Releasing a restarted worker's leases: part of `describeStoreContract`. */
export function describeLeasesContract(open: (t: TestContext) => Promise<Store>): void {
  describe("leases", () => {
    it("frees at once what one worker still holds, keeps attempts, and leaves others' and finished work alone", async (t) => {
      const store = await open(t);
      await store.commitPlan(planKey(1), {
        expectedVersion: 0,
        state: 1,
        active: true,
        effects: [{ key: "dispatch", effect: "run" }],
        timers: [{ key: "retry", at: 5 }],
      });
      await store.commitPlan(planKey(2), {
        expectedVersion: 0,
        state: 1,
        active: true,
        effects: [{ key: "other-effect", effect: "x" }],
        timers: [],
      });
      for (const id of ["d1", "d2", "d3"])
        await store.recordDelivery({ id, name: "pull_request", payload: id, receivedAt: 1 });

      // Worker "w" holds the first effect, two deliveries and the timer; "other" holds the rest.
      assert.deepEqual(
        (await store.claimEffects("w", 1, 120_000, 10)).map((e) => e.key),
        ["dispatch"],
      );
      assert.deepEqual(
        (await store.claimEffects("other", 10, 120_000, 10)).map((e) => e.key),
        ["other-effect"],
      );
      assert.deepEqual(
        (await store.claimDeliveries("w", 2, 120_000, 10)).map((d) => d.id),
        ["d1", "d2"],
      );
      assert.deepEqual(
        (await store.claimDeliveries("other", 10, 120_000, 10)).map((d) => d.id),
        ["d3"],
      );
      assert.equal((await store.claimDueTimers("w", 10, 10, 120_000)).length, 1);
      await store.completeDelivery("d2", 11);

      // "w" restarts under the same name: its pending effect, open delivery and timer come back.
      assert.equal(await store.releaseLeases("w"), 3);
      assert.equal(await store.releaseLeases("w"), 0);
      const effects = await store.claimEffects("w", 10, 120_000, 12);
      assert.deepEqual(
        effects.map((e) => [e.key, e.attempts]),
        [["dispatch", 2]],
      );
      assert.deepEqual(
        (await store.claimDeliveries("w", 10, 120_000, 12)).map((d) => [d.id, d.attempts]),
        [["d1", 2]],
      );
      assert.deepEqual(
        (await store.claimDueTimers("w", 12, 10, 120_000)).map((d) => d.key),
        ["retry"],
      );
    });
  });
}
