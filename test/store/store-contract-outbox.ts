import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { TestContext } from "node:test";
import type { EffectInput, Store } from "../../app/store/store.ts";
import { planKey } from "./plan-key-fixture.ts";

/** The transactional outbox: part of `describeStoreContract`. */
export function describeOutboxContract(open: (t: TestContext) => Promise<Store>): void {
  describe("outbox", () => {
    it("enqueues effects with the state, and a conflicting commit enqueues nothing and sets no timer", async (t) => {
      const store = await open(t);
      await store.commitPlan(planKey(1), {
        expectedVersion: 0,
        state: 1,
        active: true,
        effects: [{ key: "a", effect: { kind: "createBranch" } }],
        timers: [],
      });
      const lost = await store.commitPlan(planKey(1), {
        expectedVersion: 0,
        state: 2,
        active: true,
        effects: [{ key: "lost", effect: 1 }],
        timers: [{ key: "lost-timer", at: 0 }],
      });
      assert.deepEqual(lost, { ok: false, reason: "conflict" });
      assert.equal(await store.getEffect("lost"), null);
      assert.deepEqual(await store.claimDueTimers("w", 1000, 10, 1000), []);
      const claimed = await store.claimEffects("w", 10, 1000, 0);
      assert.deepEqual(
        claimed.map((e) => [e.key, e.effect, e.attempts, e.planKey]),
        [["a", { kind: "createBranch" }, 1, planKey(1)]],
      );
    });

    it("claims a plan's progress effect (lane 0) before its older display effects (lane 1), one at a time", async (t) => {
      const store = await open(t);
      await store.commitPlan(planKey(1), {
        expectedVersion: 0,
        state: 1,
        active: true,
        effects: [
          { key: "check-run", effect: "sync check run", lane: 1 },
          { key: "comment", effect: "sync comment", lane: 1 },
          { key: "branch", effect: "create branch", lane: 0 },
          { key: "dispatch", effect: "dispatch", lane: 0 },
        ],
        timers: [],
      });
      const order: unknown[] = [];
      for (let now = 0; now < 10; now++) {
        const claimed = await store.claimEffects("w", 10, 1000, now);
        assert.ok(claimed.length <= 1, "one effect of a plan in flight");
        for (const item of claimed) {
          order.push(item.effect);
          await store.completeEffect(item.key, null, now);
        }
      }
      assert.deepEqual(order, ["create branch", "dispatch", "sync check run", "sync comment"]);
    });

    it("drops a waiting effect a newer one replaces (which queues last), never one a worker holds", async (t) => {
      const store = await open(t);
      const sync = (target: string, version: number) => ({
        key: `p|${target}|v${version}`,
        effect: `${target} v${version}`,
        lane: 1,
        replaces: `p|${target}|v`,
      });
      await store.commitPlan(planKey(1), {
        expectedVersion: 0,
        state: 1,
        active: true,
        effects: [sync("plan", 1), sync("b", 1), { key: "p|dispatch", effect: "dispatch", lane: 0 }],
        timers: [],
        now: 0,
      });
      await store.commitPlan(planKey(1), {
        expectedVersion: 1,
        state: 2,
        active: true,
        effects: [sync("b", 2), sync("plan", 2), sync("plan", 3)],
        timers: [],
        now: 0,
      });
      assert.equal(await store.getEffect("p|plan|v1"), null, "replaced while it waited");
      assert.equal(await store.getEffect("p|plan|v2"), null, "replaced within the same commit");
      const order: unknown[] = [];
      for (let now = 1; now < 10; now++) {
        const [item] = await store.claimEffects("w", 10, 1000, now);
        if (!item) continue;
        order.push(item.effect);
        if (item.effect === "b v2") {
          // A newer sync of b while a worker holds b v2: both write, b v2 is not taken from its worker.
          await store.commitPlan(planKey(1), {
            expectedVersion: 2,
            state: 3,
            active: true,
            effects: [sync("b", 4)],
            timers: [],
            now,
          });
        }
        await store.completeEffect(item.key, null, now);
      }
      assert.deepEqual(order, ["dispatch", "b v2", "plan v3", "b v4"]);
    });

    it("claims an effect no sooner than its due time; a replacement keeps the earliest due time; progress does not wait", async (t) => {
      const store = await open(t);
      const sync = (version: number, availableAt?: number) => ({
        key: `p|b|v${version}`,
        effect: `b v${version}`,
        lane: 1,
        replaces: "p|b|v",
        ...(availableAt === undefined ? {} : { availableAt }),
      });
      const commit = (version: number, effects: EffectInput[], now: number) =>
        store.commitPlan(planKey(1), {
          expectedVersion: version,
          state: version,
          active: true,
          effects,
          timers: [],
          now,
        });
      await commit(0, [sync(1, 100)], 10);
      // A later sync, itself due later, replaces it: due at 100 still, not 150.
      await commit(1, [sync(2, 150), { key: "p|dispatch", effect: "dispatch", lane: 0 }], 50);
      assert.deepEqual(
        (await store.claimEffects("w", 10, 1000, 60)).map((e) => e.effect),
        ["dispatch"],
        "the dispatch does not wait for the display effect's due time",
      );
      await store.completeEffect("p|dispatch", null, 60);
      assert.deepEqual(await store.claimEffects("w", 10, 1000, 99), [], "not due before 100");
      assert.deepEqual(
        (await store.claimEffects("w", 10, 1000, 100)).map((e) => e.effect),
        ["b v2"],
        "due at the first one's time, with the newest content",
      );
      await store.completeEffect("p|b|v2", null, 100);
      // A sync due at once replaces a delayed one: due at once.
      await commit(2, [sync(3, 500)], 200);
      await commit(3, [sync(4)], 210);
      assert.deepEqual(
        (await store.claimEffects("w", 10, 1000, 211)).map((e) => e.effect),
        ["b v4"],
      );
    });

    it("holds a progress effect back while a display effect of its plan is in flight, not while one waits to retry", async (t) => {
      const store = await open(t);
      await store.commitPlan(planKey(1), {
        expectedVersion: 0,
        state: 1,
        active: true,
        effects: [{ key: "comment", effect: "sync comment", lane: 1 }],
        timers: [],
      });
      assert.deepEqual(
        (await store.claimEffects("w", 10, 1000, 0)).map((e) => e.key),
        ["comment"],
      );
      await store.commitPlan(planKey(1), {
        expectedVersion: 1,
        state: 2,
        active: true,
        effects: [{ key: "dispatch", effect: "dispatch", lane: 0 }],
        timers: [],
      });
      assert.deepEqual(
        await store.claimEffects("w2", 10, 1000, 1),
        [],
        "the comment sync is still in flight",
      );
      await store.failEffect("comment", "GitHub answered 502", 60_000);
      assert.deepEqual(
        (await store.claimEffects("w2", 10, 1000, 2)).map((e) => e.key),
        ["dispatch"],
        "a display effect waiting to retry does not hold the plan back",
      );
    });

    it("serves every plan's progress effects before any plan's display effects", async (t) => {
      const store = await open(t);
      await store.commitPlan(planKey(1), {
        expectedVersion: 0,
        state: 1,
        active: true,
        effects: [{ key: "p1-comment", effect: 1, lane: 1 }],
        timers: [],
      });
      await store.commitPlan(planKey(2), {
        expectedVersion: 0,
        state: 1,
        active: true,
        effects: [{ key: "p2-dispatch", effect: 2, lane: 0 }],
        timers: [],
      });
      assert.deepEqual(
        (await store.claimEffects("w", 1, 1000, 0)).map((e) => e.key),
        ["p2-dispatch"],
      );
    });

    it("never enqueues an effect key twice, within one commit or across commits, even after it is done", async (t) => {
      const store = await open(t);
      await store.commitPlan(planKey(1), {
        expectedVersion: 0,
        state: 1,
        active: true,
        effects: [
          { key: "k", effect: "first" },
          { key: "k", effect: "dup" },
        ],
        timers: [],
      });
      assert.deepEqual(
        (await store.claimEffects("w", 10, 1000, 0)).map((e) => e.effect),
        ["first"],
      );
      assert.equal(await store.completeEffect("k", { id: 5 }, 1), true);
      await store.commitPlan(planKey(1), {
        expectedVersion: 1,
        state: 2,
        active: true,
        effects: [{ key: "k", effect: "again" }],
        timers: [],
      });
      await store.commitPlan(planKey(2), {
        expectedVersion: 0,
        state: 2,
        active: true,
        effects: [{ key: "k", effect: "other plan" }],
        timers: [],
      });
      assert.deepEqual(await store.claimEffects("w", 10, 1000, 2), []);
      const record = await store.getEffect("k");
      assert.equal(record?.status, "done");
      assert.equal(record?.effect, "first");
      assert.deepEqual(record?.result, { id: 5 });
      assert.equal((await store.getPlan(planKey(1)))?.version, 2);
    });

    it("hides a claimed effect from other claimers until its lease expires, then hands it out again", async (t) => {
      const store = await open(t);
      await store.commitPlan(planKey(1), {
        expectedVersion: 0,
        state: 1,
        active: true,
        effects: [{ key: "a", effect: 1 }],
        timers: [],
      });
      const [first] = await store.claimEffects("one", 10, 1000, 100);
      assert.equal(first?.leaseUntil, 1100);
      assert.deepEqual(await store.claimEffects("two", 10, 1000, 1099), []);
      const again = await store.claimEffects("two", 10, 1000, 1100);
      assert.deepEqual(
        again.map((e) => [e.key, e.attempts]),
        [["a", 2]],
      );
    });

    it("runs one plan's effects one at a time in enqueue order while other plans proceed", async (t) => {
      const store = await open(t);
      const effects = ["createBranch", "dispatchRun", "upsertCheckRun"].map((kind, i) => ({
        key: `a${i}`,
        effect: kind,
      }));
      await store.commitPlan(planKey(1), {
        expectedVersion: 0,
        state: 1,
        active: true,
        effects: effects.slice(0, 2),
        timers: [],
      });
      await store.commitPlan(planKey(2), {
        expectedVersion: 0,
        state: 1,
        active: true,
        effects: [{ key: "b0", effect: "x" }],
        timers: [],
      });
      await store.commitPlan(planKey(1), {
        expectedVersion: 1,
        state: 2,
        active: true,
        effects: effects.slice(2),
        timers: [],
      });
      assert.deepEqual(
        (await store.claimEffects("w", 10, 1000, 0)).map((e) => e.key),
        ["a0", "b0"],
      );
      assert.deepEqual(await store.claimEffects("w", 10, 1000, 0), []);
      await store.completeEffect("a0", null, 1);
      assert.deepEqual(
        (await store.claimEffects("w", 10, 1000, 1)).map((e) => e.key),
        ["a1"],
      );
      await store.completeEffect("a1", null, 2);
      assert.deepEqual(
        (await store.claimEffects("w", 10, 1000, 2)).map((e) => e.key),
        ["a2"],
      );
    });

    it("holds a failed effect, and its plan's later effects, until its retry time; a dead one lets them run", async (t) => {
      const store = await open(t);
      await store.commitPlan(planKey(1), {
        expectedVersion: 0,
        state: 1,
        active: true,
        effects: [
          { key: "a0", effect: 0 },
          { key: "a1", effect: 1 },
        ],
        timers: [],
      });
      await store.claimEffects("w", 10, 1000, 0);
      assert.equal(await store.failEffect("a0", "HTTP 502", 500), true);
      assert.deepEqual(await store.claimEffects("w", 10, 1000, 499), []);
      const retried = await store.claimEffects("w", 10, 1000, 500);
      assert.deepEqual(
        retried.map((e) => [e.key, e.attempts, e.lastError]),
        [["a0", 2, "HTTP 502"]],
      );
      assert.equal(await store.failEffect("a0", "HTTP 422", null), true);
      assert.equal((await store.getEffect("a0"))?.status, "dead");
      assert.deepEqual(
        (await store.claimEffects("w", 10, 1000, 501)).map((e) => e.key),
        ["a1"],
      );
      assert.equal(await store.completeEffect("a0", "late", 502), false);
    });

    it("records the result for look-before-create and reports a second completion", async (t) => {
      const store = await open(t);
      assert.equal(await store.getEffect("nope"), null);
      await store.commitPlan(planKey(1), {
        expectedVersion: 0,
        state: 1,
        active: true,
        effects: [{ key: "a", effect: { run: 1 } }],
        timers: [],
        now: 9,
      });
      assert.equal((await store.getEffect("a"))?.status, "pending");
      await store.claimEffects("w", 10, 1000, 10);
      assert.equal(await store.completeEffect("a", { runId: 42 }, 11), true);
      assert.equal(await store.completeEffect("a", { runId: 43 }, 12), false);
      assert.deepEqual(await store.getEffect("a"), {
        key: "a",
        planKey: planKey(1),
        effect: { run: 1 },
        status: "done",
        attempts: 1,
        result: { runId: 42 },
        lastError: null,
        enqueuedAt: 9,
        completedAt: 11,
      });
    });
  });
}
