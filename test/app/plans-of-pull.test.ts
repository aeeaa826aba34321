import assert from "node:assert/strict";
import { test } from "node:test";
import {
  describePlans,
  findStage,
  isLoomProducedHead,
  isPlanInRepo,
  loadPlansOfPull,
} from "../../app/engine/plans-of-pull.ts";
import type { LoadedPlan } from "../../app/engine/plans-of-pull.ts";
import { createStoredPlanReader } from "../../app/engine/stored-plan.ts";
import type { PlanKey, PlanRecord } from "../../app/store/store.ts";
import type { PlanState } from "../../src/orchestrator/state.ts";
import { makeDiamond, makePlanState } from "../status/make-plan-state.ts";
import { makeEngineDeps, storePlans } from "./engine-fixture.ts";
import { useTempStores } from "./loom-harness.ts";
import { REPO_SETTINGS } from "./stored-plan-fixture.ts";

/*
 * The plans of one pull request as a command sees them: the active ones, by path; which plan a
 * stage named in `/loom retry <stage>` (or `<plan-id>/<stage>`) means, and what the reply says
 * when it means none or several; and whether a head the pull request moved to is one loom made
 * (a plan first seen there waits for a person's approval).
 */

const NOW = Date.UTC(2026, 10, 27, 20, 0, 0);
const REPO = { owner: "acme", repo: "widgets" };
const [MERGE, OTHER, PERSON] = ["1", "2", "3"].map((c) => c.repeat(40)) as [string, string, string];

const key = (planPath: string, pr = 7, repo = "widgets"): PlanKey => ({
  installationId: 4242,
  owner: "acme",
  repo,
  pr,
  planPath,
});

/** The diamond (stages a–d) as plan `id` at `path`. */
function diamond(id: string, path: string, overrides: Partial<PlanState> = {}): PlanState {
  const base = makeDiamond();
  return { ...base, plan: { ...base.plan, id, path }, ...overrides };
}

/** A two-stage plan `id` (stages a, e) at `path`. */
function pair(id: string, path: string): PlanState {
  const base = makePlanState([{ id: "a" }, { id: "e", dependencies: ["a"] }]);
  return { ...base, plan: { ...base.plan, id, path } };
}

const openStore = useTempStores();

/** Pull request 7's two active plans, loaded: PLAN-demo (a–d) and PLAN-other (a, e). */
async function twoPlans(): Promise<LoadedPlan[]> {
  const store = await openStore();
  await storePlans(
    store,
    [
      { key: key("doc/plans/PLAN-other.md"), state: pair("PLAN-other", "doc/plans/PLAN-other.md") },
      { key: key("doc/plans/PLAN-demo.md"), state: diamond("PLAN-demo", "doc/plans/PLAN-demo.md") },
    ],
    NOW,
  );
  return loadPlansOfPull(makeEngineDeps(store, NOW).deps, REPO, 7);
}

test("a pull request's active plans load parsed, by plan path; its finished plans and other pull requests' are left out", async () => {
  const store = await openStore();
  const states = {
    b: diamond("PLAN-b", "doc/plans/PLAN-b.md"),
    a: diamond("PLAN-a", "doc/plans/PLAN-a.md"),
  };
  await storePlans(
    store,
    [
      { key: key("doc/plans/PLAN-b.md"), state: states.b },
      { key: key("doc/plans/PLAN-a.md"), state: states.a },
      { key: key("doc/plans/PLAN-a.md", 8), state: diamond("PLAN-a", "doc/plans/PLAN-a.md") },
      { key: key("doc/plans/PLAN-a.md", 7, "gadgets"), state: diamond("PLAN-a", "doc/plans/PLAN-a.md") },
    ],
    NOW,
  );
  await store.commitPlan(key("doc/plans/PLAN-c.md"), {
    expectedVersion: 0,
    state: {
      format: 1,
      state: diamond("PLAN-c", "doc/plans/PLAN-c.md", { closed: true }),
      repo: REPO_SETTINGS,
    },
    active: false,
    effects: [],
    timers: [],
    now: NOW,
  });
  const plans = await loadPlansOfPull(makeEngineDeps(store, NOW).deps, REPO, 7);
  assert.deepEqual(
    plans.map((plan) => [plan.key, plan.planKey]),
    [
      [key("doc/plans/PLAN-a.md"), "acme/widgets#7:doc/plans/PLAN-a.md"],
      [key("doc/plans/PLAN-b.md"), "acme/widgets#7:doc/plans/PLAN-b.md"],
    ],
  );
  assert.deepEqual(
    plans.map((plan) => plan.stored),
    [
      { format: 1, state: states.a, repo: REPO_SETTINGS },
      { format: 1, state: states.b, repo: REPO_SETTINGS },
    ],
  );
});

test("a plan's key is in a repository whatever the case of its owner's or repository's name, and only then", () => {
  const cases: [Partial<PlanKey>, { owner: string; repo: string }, boolean][] = [
    [{ owner: "Acme", repo: "Widgets" }, { owner: "acme", repo: "widgets" }, true],
    [{ owner: "acme", repo: "widgets" }, { owner: "ACME", repo: "WIDGETS" }, true],
    [{ owner: "acme", repo: "widgets" }, { owner: "acme", repo: "widgets" }, true],
    [{ owner: "other", repo: "widgets" }, { owner: "acme", repo: "widgets" }, false],
    [{ owner: "acme", repo: "gadgets" }, { owner: "acme", repo: "widgets" }, false],
  ];
  for (const [fields, repo, expected] of cases)
    assert.equal(
      isPlanInRepo({ ...key("doc/plans/PLAN-a.md"), ...fields }, repo),
      expected,
      JSON.stringify([fields, repo]),
    );
});

test("a stage named alone is found in the one plan that has it", async () => {
  const plans = await twoPlans();
  const match = findStage(plans, { planId: null, stageId: "e" });
  assert.ok(match.ok);
  assert.deepEqual([match.plan.stored.state.plan.id, match.stageId], ["PLAN-other", "e"]);
  const other = findStage(plans, { planId: null, stageId: "d" });
  assert.ok(other.ok);
  assert.equal(other.plan.stored.state.plan.id, "PLAN-demo");
});

test("a stage two plans have must be named with its plan; named so, it is found in that plan", async () => {
  const plans = await twoPlans();
  assert.deepEqual(findStage(plans, { planId: null, stageId: "a" }), {
    ok: false,
    problem: "`a` is in several plans; write `<plan-id>/a`.",
  });
  for (const planId of ["PLAN-demo", "PLAN-other"]) {
    const match = findStage(plans, { planId, stageId: "a" });
    assert.ok(match.ok, planId);
    assert.deepEqual([match.plan.stored.state.plan.id, match.stageId], [planId, "a"]);
  }
});

test("a stage no plan has, or not in the plan named, is refused with the name as written", async () => {
  const plans = await twoPlans();
  assert.deepEqual(findStage(plans, { planId: null, stageId: "z" }), {
    ok: false,
    problem: "there is no stage `z`.",
  });
  assert.deepEqual(findStage(plans, { planId: "PLAN-other", stageId: "d" }), {
    ok: false,
    problem: "there is no stage `PLAN-other/d`.",
  });
  assert.deepEqual(findStage(plans, { planId: "PLAN-gone", stageId: "a" }), {
    ok: false,
    problem: "there is no stage `PLAN-gone/a`.",
  });
  assert.deepEqual(findStage([], { planId: null, stageId: "a" }), {
    ok: false,
    problem: "there is no stage `a`.",
  });
});

test("the plans are described by id with their stages in the plan's order", async () => {
  const plans = await twoPlans();
  assert.deepEqual(describePlans(plans), [
    { planId: "PLAN-demo", stageIds: ["a", "b", "c", "d"] },
    { planId: "PLAN-other", stageIds: ["a", "e"] },
  ]);
});

/** Pull request 7's plan records: one that recorded loom's merge `MERGE`, one from before loom kept its heads. */
async function headRecords(): Promise<PlanRecord[]> {
  const store = await openStore();
  const old = diamond("PLAN-old", "doc/plans/PLAN-old.md");
  delete old.loomHeads;
  await storePlans(
    store,
    [
      { key: key("doc/plans/PLAN-old.md"), state: old },
      {
        key: key("doc/plans/PLAN-new.md"),
        state: diamond("PLAN-new", "doc/plans/PLAN-new.md", { loomHeads: [OTHER, MERGE] }),
      },
    ],
    NOW,
  );
  return store.listPlansForPull("acme", "widgets", 7);
}

test("a head is loom's when loom pushed it, or when any plan of the pull request recorded it as its merge; a person's push is not", async () => {
  const records = await headRecords();
  const read = createStoredPlanReader();
  assert.equal(isLoomProducedHead(records, MERGE, false, read), true, "the second plan's merge");
  assert.equal(isLoomProducedHead(records, OTHER, false, read), true, "an earlier merge of it");
  assert.equal(isLoomProducedHead(records, PERSON, false, read), false, "a person's push");
  assert.equal(isLoomProducedHead(records, PERSON, true, read), true, "pushed with loom's identity");
  const old = records.filter((record) => record.key.planPath === "doc/plans/PLAN-old.md");
  assert.equal(isLoomProducedHead(old, MERGE, false, read), false, "a plan without loom heads");
  assert.equal(isLoomProducedHead([], PERSON, false, read), false);
});

test("recorded heads that are not a list of SHAs (a row loom did not write) make no head loom's", async () => {
  const store = await openStore();
  const state = diamond("PLAN-odd", "doc/plans/PLAN-odd.md");
  // One string holding the SHA, not a list of SHAs.
  Object.assign(state, { loomHeads: `${OTHER},${MERGE}` });
  await storePlans(store, [{ key: key("doc/plans/PLAN-odd.md"), state }], NOW);
  const records = await store.listPlansForPull("acme", "widgets", 7);
  assert.equal(isLoomProducedHead(records, MERGE, false, createStoredPlanReader()), false);
});

test("whether a head is loom's reads no plan when loom sent the push, else the plans until one recorded it", async () => {
  const records = await headRecords();
  const inner = createStoredPlanReader();
  const reads: string[] = [];
  const read = (record: PlanRecord) => {
    reads.push(record.key.planPath);
    return inner(record);
  };
  assert.equal(isLoomProducedHead(records, PERSON, true, read), true);
  assert.deepEqual(reads, [], "nothing read");
  assert.equal(isLoomProducedHead(records, PERSON, false, read), false);
  assert.deepEqual(reads, ["doc/plans/PLAN-new.md", "doc/plans/PLAN-old.md"]);
  reads.length = 0;
  assert.equal(isLoomProducedHead(records, MERGE, false, read), true);
  assert.deepEqual(reads, ["doc/plans/PLAN-new.md"], "the first plan recorded it");
});
