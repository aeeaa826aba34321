import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { TestContext } from "node:test";
import type { Store } from "../../app/store/store.ts";
import { planKey } from "./plan-key-fixture.ts";
import { describeFairInboxContract } from "./store-contract-fair-inbox.ts";
import { describeInboxContract } from "./store-contract-inbox.ts";
import { describeLeasesContract } from "./store-contract-leases.ts";
import { describeOutboxContract } from "./store-contract-outbox.ts";
import { describePartsContract } from "./store-contract-parts.ts";
import { describeRaceContract } from "./store-contract-race.ts";
import { describeSchemaContract } from "./store-contract-schema.ts";
import type { CreateTestDatabase } from "./test-database.ts";
import { openTestStores } from "./test-database.ts";

const noWork = { effects: [], timers: [] };

/**
 * The behaviour every `Store` adapter must have. `createDatabase` gives a fresh empty database per test;
 * several stores opened on it are separate connections (pools) to the same data.
 */
export function describeStoreContract(createDatabase: CreateTestDatabase): void {
  const open = async (t: TestContext): Promise<Store> =>
    (await openTestStores(t, createDatabase, 1)).stores[0]!;

  describe("backlog", () => {
    it("counts unprocessed deliveries, pending effects and timers", async (t) => {
      const store = await open(t);
      assert.deepEqual(await store.countBacklog(), { deliveries: 0, effects: 0, timers: 0 });
      await store.commitPlan(planKey(1), {
        expectedVersion: 0,
        state: 1,
        active: true,
        effects: [
          { key: "e1", effect: "x" },
          { key: "e2", effect: "y" },
        ],
        timers: [{ key: "wake", at: 5 }],
      });
      for (const id of ["d1", "d2"])
        await store.recordDelivery({ id, name: "pull_request", payload: id, receivedAt: 1 });
      assert.deepEqual(await store.countBacklog(), { deliveries: 2, effects: 2, timers: 1 });
      const [delivery] = await store.claimDeliveries("w", 1, 60_000, 10);
      await store.completeDelivery(delivery!.id, 11);
      const [effect] = await store.claimEffects("w", 1, 60_000, 10);
      await store.completeEffect(effect!.key, null, 11);
      assert.deepEqual(await store.countBacklog(), { deliveries: 1, effects: 1, timers: 1 });
    });
  });

  describe("health", () => {
    it("answers a ping while open and refuses one once closed", async (t) => {
      const store = await open(t);
      await store.ping();
      await store.close();
      await assert.rejects(store.ping());
    });
  });

  describe("plans", () => {
    it("inserts a plan at version 1 with expectedVersion 0 and reads it back", async (t) => {
      const store = await open(t);
      assert.equal(await store.getPlan(planKey(1)), null);
      const result = await store.commitPlan(planKey(1), {
        expectedVersion: 0,
        state: { a: [1, "x"] },
        active: true,
        ...noWork,
        now: 50,
      });
      assert.deepEqual(result, { ok: true, version: 1 });
      const plan = await store.getPlan(planKey(1));
      assert.deepEqual(plan, {
        key: planKey(1),
        planKey: "octo/hello#12:doc/plans/PLAN-1.md",
        state: { a: [1, "x"] },
        parts: new Map(),
        active: true,
        version: 1,
        createdAt: 50,
        updatedAt: 50,
      });
      await store.commitPlan(planKey(1), {
        expectedVersion: 1,
        state: "v2",
        active: true,
        ...noWork,
        now: 90,
      });
      const updated = await store.getPlan(planKey(1));
      assert.deepEqual(
        [updated?.createdAt, updated?.updatedAt],
        [50, 90],
        "an update keeps when it was opened",
      );
    });

    it("updates only from the current version and refuses a stale or missing one without writing", async (t) => {
      const store = await open(t);
      await store.commitPlan(planKey(1), { expectedVersion: 0, state: "v1", active: true, ...noWork });
      assert.deepEqual(
        await store.commitPlan(planKey(1), { expectedVersion: 1, state: "v2", active: true, ...noWork }),
        { ok: true, version: 2 },
      );
      assert.deepEqual(
        await store.commitPlan(planKey(1), { expectedVersion: 1, state: "stale", active: false, ...noWork }),
        { ok: false, reason: "conflict" },
      );
      assert.deepEqual(
        await store.commitPlan(planKey(1), { expectedVersion: 0, state: "again", active: true, ...noWork }),
        { ok: false, reason: "conflict" },
      );
      assert.deepEqual(
        await store.commitPlan(planKey(2), { expectedVersion: 3, state: "ghost", active: true, ...noWork }),
        { ok: false, reason: "conflict" },
      );
      const plan = await store.getPlan(planKey(1));
      assert.equal(plan?.state, "v2");
      assert.equal(plan?.version, 2);
      assert.equal(plan?.active, true);
      assert.equal(await store.getPlan(planKey(2)), null);
    });

    it("finds a plan whatever the case of owner and repo, and follows a new installation id", async (t) => {
      const store = await open(t);
      await store.commitPlan(planKey(1), { expectedVersion: 0, state: 1, active: true, ...noWork });
      const moved = planKey(1, { owner: "OCTO", repo: "hello", installationId: 99 });
      assert.equal((await store.getPlan(moved))?.version, 1);
      assert.deepEqual(
        await store.commitPlan(moved, { expectedVersion: 1, state: 2, active: true, ...noWork }),
        { ok: true, version: 2 },
      );
      assert.equal((await store.getPlan(planKey(1)))?.key.installationId, 99);
    });

    it("lists active plans for reconcile and all plans of one pull request", async (t) => {
      const store = await open(t);
      await store.commitPlan(planKey(1), { expectedVersion: 0, state: 1, active: true, ...noWork, now: 30 });
      await store.commitPlan(planKey(2), { expectedVersion: 0, state: 2, active: false, ...noWork, now: 10 });
      await store.commitPlan(planKey(3, { pr: 13 }), {
        expectedVersion: 0,
        state: 3,
        active: true,
        ...noWork,
        now: 20,
      });
      assert.deepEqual(
        (await store.listActivePlans()).map((p) => p.state),
        [3, 1],
      );
      assert.deepEqual(
        (await store.listPlansForPull("octo", "HELLO", 12)).map((p) => p.key.planPath),
        ["doc/plans/PLAN-1.md", "doc/plans/PLAN-2.md"],
      );
      assert.deepEqual(await store.listPlansForPull("octo", "hello", 14), []);
    });

    it("stores any JSON state exactly, including NUL characters and unicode", async (t) => {
      const store = await open(t);
      const state = { s: "nul\u0000 ünï 🧵", n: [0, -1.5, 1e300], nested: { t: true, f: null } };
      await store.commitPlan(planKey(1), { expectedVersion: 0, state, active: true, ...noWork });
      assert.deepEqual((await store.getPlan(planKey(1)))?.state, state);
    });
  });

  describePartsContract(open);
  describeOutboxContract(open);
  describeInboxContract(open);
  describeFairInboxContract(open, createDatabase);
  describeLeasesContract(open);
  describeRaceContract(createDatabase);
  describeSchemaContract(createDatabase);
}
