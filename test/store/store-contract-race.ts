import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, it } from "node:test";
import type { Store } from "../../app/store/store.ts";
import { planKey } from "./plan-key-fixture.ts";
import type { RaceOptions, RaceReport } from "./store-race-worker.ts";
import { listExpectedEffectKeys, runRace } from "./store-race-worker.ts";
import type { CreateTestDatabase } from "./test-database.ts";
import { openTestStores } from "./test-database.ts";

const childPath = fileURLToPath(new URL("./store-race-child.ts", import.meta.url));
const runFile = promisify(execFile);

/** Every effect claimed and completed exactly once, in plan order; no commit lost. */
async function assertRaceOutcome(
  store: Store,
  shape: Omit<RaceOptions, "worker">,
  reports: RaceReport[],
): Promise<void> {
  const claims = reports.flatMap((r) => r.claims);
  const expected = listExpectedEffectKeys(shape);
  assert.deepEqual(claims.map((c) => c.key).sort(), expected, "each effect key claimed exactly once");
  assert.deepEqual(
    claims.filter((c) => !c.completed || !c.predecessorDone),
    [],
    "completed, and only after the plan's earlier effect",
  );
  for (const claim of claims)
    assert.deepEqual((await store.getEffect(claim.key))?.result, { by: claim.owner });
  const perPlan = shape.workers * shape.commitsPerPlan;
  assert.equal(
    reports.reduce((n, r) => n + r.commits, 0),
    shape.plans * perPlan,
  );
  for (let p = 0; p < shape.plans; p += 1) {
    const plan = await store.getPlan(planKey(p));
    assert.equal(plan?.version, perPlan, `plan ${p} version counts every commit`);
    assert.equal(new Set(plan?.state as string[]).size, perPlan, `plan ${p} lost no commit`);
  }
}

/** Part of `describeStoreContract`: several stores, and several processes, on one database. */
export function describeRaceContract(createDatabase: CreateTestDatabase): void {
  describe("concurrency", () => {
    it("two store instances racing to commit and claim do every effect exactly once", async (t) => {
      const { stores } = await openTestStores(t, createDatabase, 2);
      const shape = { workers: 2, plans: 3, commitsPerPlan: 6 };
      const reports = await Promise.all(stores.map((store, worker) => runRace(store, { ...shape, worker })));
      await assertRaceOutcome(stores[0]!, shape, reports);
    });

    it("three processes racing on one database do every effect exactly once", async (t) => {
      const { database, stores } = await openTestStores(t, createDatabase, 1);
      const shape = { workers: 3, plans: 3, commitsPerPlan: 5 };
      const outputs = await Promise.all(
        [0, 1, 2].map((worker) =>
          runFile(
            process.execPath,
            [childPath, JSON.stringify({ options: database.options, race: { ...shape, worker } })],
            {
              timeout: 90_000,
            },
          ),
        ),
      );
      const reports = outputs.map((o) => JSON.parse(o.stdout) as RaceReport);
      await assertRaceOutcome(stores[0]!, shape, reports);
    });
  });
}
