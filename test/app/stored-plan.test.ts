import assert from "node:assert/strict";
import { test } from "node:test";
import { ZodError } from "zod";
import { CorruptPlanRowError, readStoredPlan, splitStoredPlan } from "../../app/engine/stored-plan.ts";
import type { StoredPlan } from "../../app/engine/stored-plan.ts";
import type { PlanRecord, Store } from "../../app/store/store.ts";
import { makeDiamond } from "../status/make-plan-state.ts";
import { useTempStores } from "./loom-harness.ts";
import { DEMO_KEY, REPO_SETTINGS } from "./stored-plan-fixture.ts";

/*
 * A plan row as loom reads it back from a real store after writing it in parts (the core on every
 * commit, a stage only when it changed): the same plan, every time, or a refusal that names the row
 * when the row is not one loom wrote (so a corrupt row stops that plan, not the App, and is never
 * read as a plan with less in it). `stored-plan-parts.test.ts` covers the split itself.
 */

const NOW = Date.UTC(2026, 10, 27, 20, 0, 0);
const KEY = DEMO_KEY;
const PLAN_KEY = "acme/widgets#7:doc/plans/PLAN-demo.md";

const openStore = useTempStores();

function plan(): StoredPlan {
  return { format: 1, state: makeDiamond({ a: { status: "executing" } }), repo: REPO_SETTINGS };
}

/** Commits `stored` as the App does (its core, the parts that changed) and reads the row back. */
async function commit(store: Store, stored: StoredPlan, before: PlanRecord | null): Promise<PlanRecord> {
  const { core, setParts, dropParts } = splitStoredPlan(stored, before);
  const result = await store.commitPlan(KEY, {
    expectedVersion: before?.version ?? 0,
    state: core,
    setParts,
    dropParts,
    active: true,
    effects: [],
    timers: [],
    now: NOW,
  });
  assert.ok(result.ok);
  const record = await store.getPlan(KEY);
  assert.ok(record !== null);
  return record;
}

test("a plan committed in parts to the store reads back as the same plan, commit after commit", async () => {
  const store = await openStore();
  const first = plan();
  const record = await commit(store, first, null);
  assert.deepEqual(readStoredPlan(record), first);
  // A stage moves on, then the plan loses a stage: each commit's row reads back as that plan.
  const second = structuredClone(first);
  second.state.stages["a"]!.status = "completed";
  second.state.stages["b"]!.status = "executing";
  const again = await commit(store, second, record);
  assert.deepEqual(readStoredPlan(again), second);
  const third = structuredClone(second);
  delete third.state.stages["d"];
  third.state.order = ["a", "b", "c"];
  const last = await commit(store, third, again);
  assert.deepEqual(
    [...last.parts.keys()].sort(),
    ["plan", "stage:a", "stage:b", "stage:c"],
    "d's part is gone",
  );
  assert.deepEqual(readStoredPlan(last), third);
});

test("the repository settings a row carries are checked: a missing one or a role loom does not know refuses the row", async () => {
  const store = await openStore();
  const record = await commit(store, plan(), null);
  const core = record.state as { format: 2; state: object; repo: Record<string, unknown> };
  const { branchCleanup: _, ...withoutCleanup } = REPO_SETTINGS;
  for (const repo of [
    withoutCleanup,
    { ...REPO_SETTINGS, minimumRole: "owner" },
    { ...REPO_SETTINGS, workflowFile: 7 },
  ]) {
    assert.throws(
      () => readStoredPlan({ ...record, state: { ...core, repo } }),
      { name: "CorruptPlanRowError", message: `plan row ${PLAN_KEY} is not a loom plan` },
      JSON.stringify(repo),
    );
    assert.throws(
      () => readStoredPlan({ ...record, state: { ...plan(), repo }, parts: new Map() }),
      CorruptPlanRowError,
    );
  }
});

test("a row of a format loom never wrote is refused, with what was wrong with it kept for whoever reads the log", async () => {
  const store = await openStore();
  const record = await commit(store, plan(), null);
  const core = record.state as Record<string, unknown>;
  for (const state of [{ ...core, format: 3 }, { ...plan(), format: 3 }, null, "a plan"]) {
    assert.throws(
      () => readStoredPlan({ ...record, state }),
      (error: unknown) =>
        error instanceof CorruptPlanRowError &&
        error.name === "CorruptPlanRowError" &&
        error.message === `plan row ${PLAN_KEY} is not a loom plan` &&
        error.cause instanceof ZodError,
      JSON.stringify(state)?.slice(0, 60),
    );
  }
});

test("a row written in parts whose order is missing or not a list is refused as not a loom plan, not as a missing part", async () => {
  const store = await openStore();
  const record = await commit(store, plan(), null);
  const core = record.state as { format: 2; state: Record<string, unknown>; repo: unknown };
  for (const order of [undefined, "abcd", { 0: "a" }, [null]]) {
    assert.throws(
      () => readStoredPlan({ ...record, state: { ...core, state: { ...core.state, order } } }),
      { name: "CorruptPlanRowError", message: `plan row ${PLAN_KEY} is not a loom plan` },
      JSON.stringify(order),
    );
  }
});

test("a plan part that is not a plan spec refuses the row", async () => {
  const store = await openStore();
  const record = await commit(store, plan(), null);
  const parts = new Map(record.parts);
  parts.set("plan", JSON.stringify({ id: "PLAN-demo" }));
  assert.throws(() => readStoredPlan({ ...record, parts }), {
    name: "CorruptPlanRowError",
    message: `plan row ${PLAN_KEY} is not a loom plan`,
  });
});

test("a part that is not JSON refuses the row, naming the row and the part", async () => {
  const store = await openStore();
  const record = await commit(store, plan(), null);
  for (const name of ["plan", [...record.parts.keys()].find((key) => key.startsWith("stage:")) ?? ""]) {
    const parts = new Map(record.parts);
    parts.set(name, '{"id": "PLAN-demo"');
    assert.throws(
      () => readStoredPlan({ ...record, parts }),
      (error: unknown) =>
        error instanceof CorruptPlanRowError &&
        error.message === `plan row ${PLAN_KEY} has a part ${name} that is not JSON` &&
        error.cause instanceof SyntaxError,
      name,
    );
  }
});
