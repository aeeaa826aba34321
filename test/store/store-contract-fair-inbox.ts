import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { TestContext } from "node:test";
import type { Store } from "../../app/store/store.ts";
import type { CreateTestDatabase } from "./test-database.ts";
import { openTestStores } from "./test-database.ts";

/** Records `count` deliveries of one installation, ids `<prefix>-<n>`, oldest first. */
async function recordBacklog(store: Store, prefix: string, installationId: number | null, count: number) {
  for (let n = 0; n < count; n += 1)
    await store.recordDelivery({
      id: `${prefix}-${n}`,
      name: "workflow_run",
      payload: null,
      receivedAt: n,
      ...(installationId === null ? {} : { installationId }),
    });
}

/** Installations in turn, and pushes superseded by newer ones: part of `describeStoreContract`. */
export function describeFairInboxContract(
  open: (t: TestContext) => Promise<Store>,
  createDatabase: CreateTestDatabase,
): void {
  describe("fair inbox", () => {
    it("claims installation B's one delivery before installation A's backlog of 500 is worked off", async (t) => {
      const store = await open(t);
      await recordBacklog(store, "a", 1, 500);
      await recordBacklog(store, "b", 2, 1);
      const first = (await store.claimDeliveries("w", 20, 60_000, 1_000)).map((d) => d.id);
      assert.deepEqual(first.slice(0, 3), ["a-0", "b-0", "a-1"], "B waits for one of A's, not 500");
      assert.equal(first.length, 20);
      assert.deepEqual(
        first.filter((id) => id.startsWith("a-")),
        Array.from({ length: 19 }, (_, n) => `a-${n}`),
        "A's own deliveries stay in the order recorded",
      );
    });

    it("serves every installation in turn, a parked delivery holding its installation's turn for none", async (t) => {
      const store = await open(t);
      await recordBacklog(store, "a", 1, 3);
      await recordBacklog(store, "b", 2, 2);
      await recordBacklog(store, "c", 3, 1);
      // Rows stored before schema version 4 have no installation: they share one turn.
      await recordBacklog(store, "old", null, 2);
      const [parked] = await store.claimDeliveries("w", 1, 60_000, 0);
      assert.equal(parked?.id, "a-0");
      await store.failDelivery("a-0", "GitHub answered 502", 5_000);
      assert.deepEqual(
        (await store.claimDeliveries("w", 10, 60_000, 10)).map((d) => d.id),
        ["a-1", "b-0", "c-0", "old-0", "a-2", "b-1", "old-1"],
      );
    });

    it("tells an older push of a pull request from the newest, unless the newest was given up", async (t) => {
      const store = await open(t);
      const push = (id: string, coalesceKey: string | null) =>
        store.recordDelivery({ id, name: "pull_request", payload: null, receivedAt: 1, coalesceKey });
      await push("p1", "pr:acme/widgets#1");
      await push("other", "pr:acme/widgets#2");
      await push("label", null);
      await push("p2", "pr:acme/widgets#1");
      await push("p3", "pr:acme/widgets#1");
      const newer = async (id: string) => store.hasNewerDelivery(id);
      assert.deepEqual(
        [await newer("p1"), await newer("p2"), await newer("p3"), await newer("other"), await newer("label")],
        [true, true, false, false, false],
      );
      await store.completeDelivery("p3", 10, "gave up after 5 attempts: GitHub answered 502");
      assert.equal(await newer("p2"), false, "a given-up newest push does nobody's work");
      assert.equal(await newer("p1"), true, "p2 is still newer than p1");
      await store.completeDelivery("p2", 10);
      assert.equal(await newer("p1"), true, "a processed newer push did p1's work");
      assert.equal(await newer("unknown"), false);
    });

    it("two store instances claiming at once lease every delivery exactly once, installations in turn", async (t) => {
      const { stores } = await openTestStores(t, createDatabase, 2);
      const [one, two] = stores;
      await recordBacklog(one!, "a", 1, 60);
      await recordBacklog(one!, "b", 2, 30);
      await recordBacklog(one!, "c", 3, 10);
      const batches: { round: number; ids: string[] }[] = [];
      await Promise.all(
        [one!, two!].map(async (store, worker) => {
          for (let round = 0; round < 20; round += 1) {
            const ids = (await store.claimDeliveries(`w${worker}`, 7, 60_000, 1_000)).map((d) => d.id);
            batches.push({ round, ids });
          }
        }),
      );
      const claimed = batches.flatMap((batch) => batch.ids);
      // Each worker's first claim, whichever finished first: the two run at once, so one worker may
      // finish two claims before the other's first returns.
      const firstClaims = batches.filter((batch) => batch.round === 0).flatMap((batch) => batch.ids);
      assert.ok(firstClaims.includes("c-0"), "C's oldest is in the first claims");
      assert.equal(claimed.length, 100);
      assert.equal(new Set(claimed).size, 100, "no delivery leased twice");
    });
  });
}
