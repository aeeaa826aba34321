import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { createStoredPlanReader, readStoredPlan, splitStoredPlan } from "../../app/engine/stored-plan.ts";
import type { SplitPlan, StoredPlan } from "../../app/engine/stored-plan.ts";
import type { PlanRecord, Store } from "../../app/store/store.ts";
import { pullRequestPayload, workflowRunPayload } from "../support/webhook-payloads.ts";
import { makeDiamond } from "../status/make-plan-state.ts";
import { openTempStore, startHarness } from "./loom-harness.ts";
import type { Harness } from "./loom-harness.ts";
import { passingResult } from "./stage-results.ts";
import { REPO_SETTINGS as REPO, applySplit } from "./stored-plan-fixture.ts";

function stored(): StoredPlan {
  return { format: 1, state: makeDiamond({ a: { status: "executing" } }), repo: REPO };
}

/** The record the store gives back after a commit of `split` (parts not named kept from `before`). */
function recordAfter(
  split: SplitPlan,
  before: Pick<PlanRecord, "parts"> | null = null,
): Pick<PlanRecord, "planKey" | "state" | "parts"> {
  return {
    planKey: "acme/widgets#1:doc/plans/PLAN-diamond.md",
    state: JSON.parse(JSON.stringify(split.core)),
    parts: applySplit(before?.parts, split),
  };
}

test("a plan written split reads back as the same plan, stages in the plan's order", () => {
  const plan = stored();
  const back = readStoredPlan(recordAfter(splitStoredPlan(plan, null)));
  assert.deepEqual(back, plan);
  assert.deepEqual(Object.keys(back.state.stages), plan.state.order);
});

test("a commit writes the plan spec and each stage once, then only the stages that changed", () => {
  const plan = stored();
  const first = splitStoredPlan(plan, null);
  assert.deepEqual(Object.keys(first.setParts).sort(), ["plan", "stage:a", "stage:b", "stage:c", "stage:d"]);
  const record = recordAfter(first);
  const next = structuredClone(plan);
  next.state.stages["b"]!.status = "executing";
  next.state.pr.headSha = "f".repeat(40);
  const second = splitStoredPlan(next, record);
  assert.deepEqual(Object.keys(second.setParts), ["stage:b"], "only b changed");
  assert.deepEqual(second.dropParts, []);
  assert.ok(!JSON.stringify(second.core).includes('"stages":{"'), "the core carries no stage");
  assert.deepEqual(readStoredPlan(recordAfter(second, record)), next);
});

test("a stage gone from the plan loses its part", () => {
  const plan = stored();
  const record = recordAfter(splitStoredPlan(plan, null));
  const next = structuredClone(plan);
  delete next.state.stages["d"];
  next.state.order = ["a", "b", "c"];
  const split = splitStoredPlan(next, record);
  assert.deepEqual(split.dropParts, ["stage:d"]);
  assert.deepEqual(readStoredPlan(recordAfter(split, record)), next);
});

test("a row an older loom wrote whole is read whole, its stale parts ignored, and its next commit writes every part", () => {
  const plan = stored();
  const split = recordAfter(splitStoredPlan(plan, null));
  // An older replica wrote the plan whole after the split: b runs there, not in the stale part.
  const newer = structuredClone(plan);
  newer.state.stages["b"]!.status = "executing";
  const whole = { ...split, state: JSON.parse(JSON.stringify(newer)) };
  assert.deepEqual(readStoredPlan(whole), newer, "the whole row wins over parts it did not write");
  const next = splitStoredPlan(newer, whole);
  assert.deepEqual(Object.keys(next.setParts).sort(), ["plan", "stage:a", "stage:b", "stage:c", "stage:d"]);
  assert.deepEqual(readStoredPlan(recordAfter(next, whole)), newer);
});

test("a split row missing its plan part is reported as not a loom plan", () => {
  const record = recordAfter(splitStoredPlan(stored(), null));
  const parts = new Map(record.parts);
  parts.delete("plan");
  assert.throws(() => readStoredPlan({ ...record, parts }), { name: "CorruptPlanRowError" });
});

test("stages come back in the plan's order, whatever order the store lists the parts in", () => {
  const plan = stored();
  // A valid order of the diamond that is not the parts' alphabetical order.
  plan.state.order = ["a", "c", "b", "d"];
  plan.state.stages = {
    a: plan.state.stages["a"]!,
    c: plan.state.stages["c"]!,
    b: plan.state.stages["b"]!,
    d: plan.state.stages["d"]!,
  };
  const record = recordAfter(splitStoredPlan(plan, null));
  const sorted = new Map([...record.parts].sort(([x], [y]) => x.localeCompare(y)));
  const back = readStoredPlan({ ...record, parts: sorted });
  assert.deepEqual(Object.keys(back.state.stages), ["a", "c", "b", "d"]);
  assert.deepEqual(back, plan);
});

test("a split row missing a stage's part is refused, naming the row and the part, never read as a plan without that stage; a new row drops nothing", () => {
  const split = splitStoredPlan(stored(), null);
  assert.deepEqual(split.dropParts, []);
  const record = recordAfter(split);
  const parts = new Map(record.parts);
  parts.delete("stage:c");
  assert.throws(() => readStoredPlan({ ...record, parts }), {
    name: "CorruptPlanRowError",
    message: "plan row acme/widgets#1:doc/plans/PLAN-diamond.md has no part stage:c",
  });
});

test("a row whose state lacks what loom writes (plan, pull request, stages) is refused, naming the row", () => {
  const plan = stored();
  const rows = [
    { ...plan, state: { ...plan.state, plan: {} } },
    { ...plan, state: { ...plan.state, pr: { number: 1 } } },
    { ...plan, state: { ...plan.state, order: undefined } },
    { format: 1, state: {}, repo: REPO },
  ];
  for (const state of rows) {
    assert.throws(
      () => readStoredPlan({ planKey: "acme/widgets#1:doc/plans/PLAN-x.md", state, parts: new Map() }),
      {
        name: "CorruptPlanRowError",
        message: "plan row acme/widgets#1:doc/plans/PLAN-x.md is not a loom plan",
      },
      JSON.stringify(state).slice(0, 80),
    );
  }
  const split = recordAfter(splitStoredPlan(plan, null));
  const core = split.state as { state: Record<string, unknown> };
  assert.throws(
    () => readStoredPlan({ ...split, state: { ...core, state: { ...core.state, order: [1] } } }),
    {
      name: "CorruptPlanRowError",
      message: "plan row acme/widgets#1:doc/plans/PLAN-diamond.md is not a loom plan",
    },
  );
});

test("one delivery's reader reads and checks each record once", () => {
  const read = createStoredPlanReader();
  const record = { ...recordAfter(splitStoredPlan(stored(), null)), key: undefined } as unknown as PlanRecord;
  const other = { ...record };
  const first = read(record);
  assert.equal(read(record), first, "the same record: the same plan, not read again");
  assert.notEqual(read(other), first, "another record is read for itself");
  assert.deepEqual(read(other), first);
});

let h: Harness | undefined;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
  for (const close of closers.splice(0)) await close();
});

/** A SQLite store that records the part names each commit writes. */
async function openRecordingStore(written: string[][]): Promise<Store> {
  const { store: inner, close } = await openTempStore();
  closers.push(close);
  const recording: Store = Object.assign(Object.create(null) as object, inner, {
    commitPlan: (...args: Parameters<Store["commitPlan"]>) => {
      written.push(Object.keys(args[1].setParts ?? {}).sort());
      return inner.commitPlan(...args);
    },
  });
  return recording;
}

test("the App's commits write the stages a run changed, never the plan spec again", async () => {
  const written: string[][] = [];
  h = await startHarness({ store: await openRecordingStore(written) });
  h.fake.files.set("main:.github/loom.yml", "rename_plans: false\n");
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));
  assert.deepEqual(
    written[0],
    ["plan", "stage:a", "stage:b", "stage:c", "stage:d"],
    "the first commit writes all",
  );
  const from = written.length;
  const [dispatch] = h.fake.dispatches;
  assert.ok(dispatch);
  h.fake.finishRun(dispatch.runId, "success", passingResult("a"));
  await h.receive(
    "workflow_run",
    workflowRunPayload("completed", { id: dispatch.runId, displayTitle: `loom ${dispatch.inputs["key"]}` }),
  );
  const later = written.slice(from).flat();
  assert.ok(later.includes("stage:a"), "a's record was written");
  assert.ok(!later.includes("plan"), "the plan spec is not written again");
  assert.ok(!later.includes("stage:d"), "d, waiting on b and c, did not change");
  await h.finish();
});

test("an event that changes nothing commits nothing (a webhook GitHub sent twice)", async () => {
  const written: string[][] = [];
  // The clock stands still: a later time would be news (the run's last sign of life).
  const now = Date.UTC(2026, 10, 26, 12, 0, 0);
  h = await startHarness({ store: await openRecordingStore(written), clock: () => now });
  h.fake.files.set("main:.github/loom.yml", "rename_plans: false\n");
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));
  const [dispatch] = h.fake.dispatches;
  assert.ok(dispatch);
  const started = workflowRunPayload("in_progress", {
    id: dispatch.runId,
    displayTitle: `loom ${dispatch.inputs["key"]}`,
  });
  await h.receive("workflow_run", started, "started-1");
  const commits = written.length;
  await h.receive("workflow_run", started, "started-2");
  assert.equal(written.length, commits, "the same news again: no commit");
  await h.finish();
});
