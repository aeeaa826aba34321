import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { TestContext } from "node:test";
import type { Store } from "../../app/store/store.ts";
import { planKey } from "./plan-key-fixture.ts";

const noWork = { effects: [], timers: [] };

/**
 * A plan's parts (issue 13: a commit writes the stages it changed, not the whole state), on both
 * adapters: written with the plan in its transaction, kept until named again, read back with the
 * plan in one snapshot. Part of `describeStoreContract`.
 */
export function describePartsContract(open: (t: TestContext) => Promise<Store>): void {
  describe("plan parts", () => {
    it("writes parts with the plan and returns them on every read of it", async (t) => {
      const store = await open(t);
      await store.commitPlan(planKey(1), {
        expectedVersion: 0,
        state: "core",
        active: true,
        ...noWork,
        setParts: { "stage:a": '{"x":1}', plan: "[2]" },
      });
      const expected = new Map([
        ["plan", "[2]"],
        ["stage:a", '{"x":1}'],
      ]);
      const sorted = (parts: ReadonlyMap<string, string> | undefined) => new Map([...(parts ?? [])].sort());
      assert.deepEqual(sorted((await store.getPlan(planKey(1)))?.parts), expected);
      assert.deepEqual(sorted((await store.listActivePlans())[0]?.parts), expected);
      assert.deepEqual(sorted((await store.listPlansForPull("octo", "hello", 12))[0]?.parts), expected);
      assert.deepEqual(sorted((await store.listPlans())[0]?.parts), expected);
      assert.deepEqual(sorted((await store.listPlans({ owner: "octo", repo: "hello" }))[0]?.parts), expected);
    });

    it("keeps a part a commit does not name, replaces one it names and drops one it drops", async (t) => {
      const store = await open(t);
      await store.commitPlan(planKey(1), {
        expectedVersion: 0,
        state: "v1",
        active: true,
        ...noWork,
        setParts: { a: "1", b: "2", c: "3" },
      });
      await store.commitPlan(planKey(1), {
        expectedVersion: 1,
        state: "v2",
        active: true,
        ...noWork,
        setParts: { b: "20", d: "4" },
        dropParts: ["c"],
      });
      const plan = await store.getPlan(planKey(1));
      assert.equal(plan?.state, "v2");
      assert.deepEqual(
        new Map([...(plan?.parts ?? [])].sort()),
        new Map([
          ["a", "1"],
          ["b", "20"],
          ["d", "4"],
        ]),
      );
    });

    it("writes and drops no part when the compare-and-swap is refused", async (t) => {
      const store = await open(t);
      await store.commitPlan(planKey(1), {
        expectedVersion: 0,
        state: "v1",
        active: true,
        ...noWork,
        setParts: { a: "1" },
      });
      const refused = await store.commitPlan(planKey(1), {
        expectedVersion: 7,
        state: "stale",
        active: true,
        ...noWork,
        setParts: { a: "9", b: "2" },
        dropParts: ["a"],
      });
      assert.deepEqual(refused, { ok: false, reason: "conflict" });
      assert.deepEqual((await store.getPlan(planKey(1)))?.parts, new Map([["a", "1"]]));
    });

    it("keeps a part's text exactly (escapes, unicode, key order) and keeps plans' parts apart", async (t) => {
      const store = await open(t);
      const text = '{"z":1,"a":"nul\\u0000 ünï 🧵","q":"say \\"hi\\""}';
      await store.commitPlan(planKey(1), {
        expectedVersion: 0,
        state: 1,
        active: true,
        ...noWork,
        setParts: { s: text },
      });
      await store.commitPlan(planKey(2), {
        expectedVersion: 0,
        state: 2,
        active: true,
        ...noWork,
        setParts: { s: "0" },
      });
      assert.equal((await store.getPlan(planKey(1)))?.parts.get("s"), text);
      assert.equal((await store.getPlan(planKey(2)))?.parts.get("s"), "0");
    });
  });
}
