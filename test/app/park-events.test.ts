import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import pino from "pino";
import { applyParkedEvents, ParkedEventsConflictError } from "../../app/engine/apply-parked-events.ts";
import type { EngineDeps } from "../../app/engine/engine-deps.ts";
import { parkEvents } from "../../app/engine/park-events.ts";
import type { ParkedEvents } from "../../app/engine/park-events.ts";
import { readStoredPlan } from "../../app/engine/stored-plan.ts";
import type { PlanKey, Store } from "../../app/store/store.ts";
import { makeDiamond } from "../status/make-plan-state.ts";
import { openTempStore } from "./loom-harness.ts";
import { DEMO_KEY, REPO_SETTINGS } from "./stored-plan-fixture.ts";

/*
 * Events whose commit kept losing the compare-and-swap wait in the inbox as loom's own delivery,
 * due after the first backoff; the inbox applies them later, reports another conflict by throwing
 * (so they wait again, counted), and drops them only when their plan is gone.
 */

const NOW = Date.UTC(2026, 10, 27, 15, 0, 0);
const KEY = DEMO_KEY;
const GONE: PlanKey = { ...KEY, planPath: "doc/plans/PLAN-gone.md" };

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Line = { level: number; msg: string; id?: string; plan?: PlanKey; events?: string[]; reason?: string };

/** Plan `KEY` stored; `conflicting`: every later commit loses the compare-and-swap. */
async function setUp(options: { conflicting?: boolean } = {}) {
  const { store: inner, close } = await openTempStore();
  cleanups.push(close);
  const committed = await inner.commitPlan(KEY, {
    expectedVersion: 0,
    state: { format: 1, state: makeDiamond(), repo: REPO_SETTINGS },
    active: true,
    effects: [],
    timers: [],
    now: NOW,
  });
  assert.ok(committed.ok);
  const store: Store =
    options.conflicting === true
      ? Object.assign(Object.create(null) as object, inner, {
          commitPlan: () => Promise.resolve({ ok: false as const, reason: "conflict" as const }),
        })
      : inner;
  const lines: Line[] = [];
  const deps: EngineDeps = {
    store,
    now: () => NOW,
    workerId: "w",
    log: pino({ level: "debug" }, { write: (line: string) => lines.push(JSON.parse(line) as Line) }),
    getBotLogin: () => Promise.resolve("loom[bot]"),
    getOctokit: () => Promise.reject(new Error("no GitHub here")),
  };
  return { store: inner, deps, lines };
}

const hold: ParkedEvents["events"][number] = { type: "labels.changed", at: NOW, labels: ["loom:hold"] };

test("parked events wait in the inbox as loom's own delivery, due after the first backoff, with the reason; a warning names them", async () => {
  const { store, deps, lines } = await setUp();
  const parked: ParkedEvents = { key: KEY, events: [hold, { type: "tick", at: NOW }] };
  const id = await parkEvents(deps, parked, "the plan kept changing");
  // The inbox name is stored: a loom started later must still know parked work by it.
  assert.match(id, /^loom\.events:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  const delivery = await store.getDelivery(id);
  assert.deepEqual(
    [delivery?.name, delivery?.receivedAt, delivery?.availableAt, delivery?.lastError, delivery?.attempts],
    ["loom.events", NOW, NOW + 5_000, "the plan kept changing", 0],
  );
  assert.deepEqual(await store.claimDeliveries("w", 10, 1_000, NOW + 4_999), []);
  const [claimed] = await store.claimDeliveries("w", 10, 1_000, NOW + 5_000);
  assert.deepEqual([claimed?.id, claimed?.payload], [id, parked]);
  assert.deepEqual(
    lines.map((line) => [line.level, line.msg, line.id, line.plan, line.events, line.reason]),
    [
      [
        40,
        "events parked in the inbox; they are applied again later",
        id,
        KEY,
        ["labels.changed", "tick"],
        "the plan kept changing",
      ],
    ],
  );
  assert.notEqual(await parkEvents(deps, parked, "again"), id, "each parking is a delivery of its own");
});

test("parked events are applied to their plan", async () => {
  const { store, deps } = await setUp();
  await applyParkedEvents(deps, { key: KEY, events: [hold] });
  const record = await store.getPlan(KEY);
  assert.ok(record);
  assert.deepEqual([record.version, readStoredPlan(record).state.hold], [2, true]);
});

test("parked events for a plan that is gone have nothing to apply: a warning, and they are done", async () => {
  const { store, deps, lines } = await setUp();
  await applyParkedEvents(deps, { key: GONE, events: [hold] });
  assert.equal(await store.getPlan(GONE), null);
  assert.deepEqual(
    lines.map((line) => [line.level, line.msg, line.plan]),
    [[40, "parked events for a plan loom no longer has; nothing to apply", GONE]],
  );
});

test("parked events that lose the compare-and-swap again throw, and are not parked a second time", async () => {
  const { store, deps } = await setUp({ conflicting: true });
  await assert.rejects(applyParkedEvents(deps, { key: KEY, events: [hold, { type: "tick", at: NOW }] }), {
    name: "ParkedEventsConflictError",
    message: "the plan kept changing while 2 parked event(s) were applied",
  });
  await assert.rejects(applyParkedEvents(deps, { key: KEY, events: [hold] }), ParkedEventsConflictError);
  assert.equal((await store.countBacklog()).deliveries, 0, "the inbox keeps the one delivery it has");
  assert.equal((await store.getPlan(KEY))?.version, 1);
});

test("parked work not shaped as loom parks it is refused before anything is applied", async () => {
  const { store, deps } = await setUp();
  const cases: [string, unknown][] = [
    ["an event without a type", { key: KEY, events: [{ at: NOW, labels: ["loom:hold"] }] }],
    ["an event without its time", { key: KEY, events: [{ type: "tick" }] }],
    ["an effect without a key", { key: KEY, events: [], effects: [{ type: "reply" }] }],
    ["an effect without a type", { key: KEY, events: [], effects: [{ key: "reply:1" }] }],
    ["settings that are not loom's", { key: KEY, events: [hold], repo: { workflowFile: 1 } }],
    ["no plan key", { events: [hold] }],
  ];
  for (const [name, payload] of cases)
    await assert.rejects(applyParkedEvents(deps, payload), { name: "ZodError" }, name);
  assert.equal((await store.getPlan(KEY))?.version, 1, "nothing applied");
});
