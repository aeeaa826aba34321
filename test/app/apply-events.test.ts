import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import pino from "pino";
import { applyEvents, FOLLOW_DELAY_MS, MAX_CAS_ATTEMPTS, WAKE_TIMER } from "../../app/engine/apply-events.ts";
import type { ApplyEventsInput } from "../../app/engine/apply-events.ts";
import type { EngineDeps } from "../../app/engine/engine-deps.ts";
import { PARKED_EVENTS } from "../../app/engine/park-events.ts";
import { readStoredPlan } from "../../app/engine/stored-plan.ts";
import { createMetrics } from "../../app/metrics/create-metrics.ts";
import { formatPlanKey } from "../../app/store/store.ts";
import type { CommitPlanInput, Store } from "../../app/store/store.ts";
import type { Effect } from "../../src/orchestrator/effects.ts";
import { DEFAULT_SETTINGS } from "../../src/orchestrator/events.ts";
import type { OrchestratorEvent } from "../../src/orchestrator/events.ts";
import type { PlanState } from "../../src/orchestrator/state.ts";
import { makeDiamond, makeSession } from "../status/make-plan-state.ts";
import { openTempStore } from "./loom-harness.ts";
import { REPO_SETTINGS, demoKey } from "./stored-plan-fixture.ts";

/*
 * How events become a plan's new state: through the reducer, committed with the effects and timers
 * it decided in one compare-and-swap; re-decided on the fresh state when another writer won; parked
 * in the inbox (never dropped) when it keeps losing. Here against a real SQLite store.
 */

const NOW = Date.UTC(2026, 10, 27, 12, 0, 0);
const MINUTE = 60_000;
const key = demoKey;
const KEY = key(7);
const PLAN_KEY = formatPlanKey(KEY);
/** The prefix of every effect key the reducer decides for the demo plan. */
const EFFECT_PREFIX = "bbbbbbbbbbbb-pr7-PLAN-demo";
const HEAD = "a".repeat(40);

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Line = { level: number; msg: string; planKey?: string; attempt?: number };

/**
 * A store whose next `losses` commits lose the compare-and-swap as if another replica wrote first,
 * and which runs `before` (another writer) ahead of the next commit.
 */
type RacingStore = Store & {
  lose(count: number): void;
  before: (() => Promise<void>) | null;
  commits: CommitPlanInput[];
};

async function setUp(options: { withMetrics?: boolean } = {}) {
  const { store: inner, close } = await openTempStore();
  cleanups.push(close);
  let losses = 0;
  const store: RacingStore = Object.assign(Object.create(null) as object, inner, {
    before: null,
    commits: [] as CommitPlanInput[],
    lose(count: number) {
      losses = count;
    },
    commitPlan: async (...args: Parameters<Store["commitPlan"]>) => {
      store.commits.push(args[1]);
      const before = store.before;
      store.before = null;
      if (before !== null) await before();
      if (losses > 0) {
        losses -= 1;
        return { ok: false as const, reason: "conflict" as const };
      }
      return inner.commitPlan(...args);
    },
  });
  let time = NOW;
  const lines: Line[] = [];
  const metrics = createMetrics({ store: inner, defaultMetrics: false });
  const deps: EngineDeps = {
    store,
    now: () => time,
    workerId: "w",
    log: pino({ level: "debug" }, { write: (line: string) => lines.push(JSON.parse(line) as Line) }),
    getBotLogin: () => Promise.resolve("loom[bot]"),
    getOctokit: () => Promise.reject(new Error("no GitHub here")),
    ...(options.withMetrics === true ? { metrics } : {}),
  };
  const clock = {
    set: (at: number) => {
      time = at;
    },
  };
  return { store, inner, deps, lines, metrics, clock };
}

/** The demo plan (the diamond a → (b, c) → d) opened on pull request `pr` at `at`. */
function opened(at = NOW, pr = 7): OrchestratorEvent {
  return {
    type: "plan.opened",
    at,
    plan: makeDiamond().plan,
    settings: DEFAULT_SETTINGS,
    pr: { number: pr, headRef: "feature/demo", headSha: HEAD, baseRef: "main" },
    trusted: true,
    labels: [],
  };
}

const tick = (at: number): OrchestratorEvent => ({ type: "tick", at });

/** Stores `state` as the plan of `planKey` directly (version 1), with nothing enqueued. */
async function storePlan(store: Store, state: PlanState, planKey = KEY): Promise<void> {
  const committed = await store.commitPlan(planKey, {
    expectedVersion: 0,
    state: { format: 1, state, repo: REPO_SETTINGS },
    active: true,
    effects: [],
    timers: [],
    now: NOW,
  });
  assert.ok(committed.ok);
}

async function storedPlan(store: Store, planKey = KEY) {
  const record = await store.getPlan(planKey);
  assert.ok(record, "the plan is stored");
  return { record, plan: readStoredPlan(record) };
}

/** Every effect claimable at `now`, in the order the outbox hands them out (each completed at once). */
async function claimAll(store: Store, now: number, maxLane?: number): Promise<string[]> {
  const keys: string[] = [];
  for (;;) {
    const claimed = await store.claimEffects("peek", 10, 0, now, maxLane);
    if (claimed.length === 0) return keys;
    for (const effect of claimed) {
      keys.push(effect.key);
      await store.completeEffect(effect.key, null, now);
    }
  }
}

/** The plan's timers (all of them: claimed far in the future, without a lease). */
async function timersOf(store: Store): Promise<{ key: string; at: number }[]> {
  const due = await store.claimDueTimers("peek", NOW + 365 * 24 * 60 * MINUTE, 100, 0);
  return due.map((timer) => ({ key: timer.key, at: timer.at }));
}

const apply = (deps: EngineDeps, input: Partial<ApplyEventsInput>) =>
  applyEvents(deps, { key: KEY, events: [], ...input });

test("an opened plan is stored at version 1 with its settings, active, and its effects enqueued under the plan's identity", async () => {
  const { store, deps } = await setUp();
  const result = await apply(deps, { events: [opened()], repo: REPO_SETTINGS });
  assert.ok(result.ok);
  const { record, plan } = await storedPlan(store);
  assert.deepEqual([record.version, record.createdAt, record.updatedAt, record.active], [1, NOW, NOW, true]);
  assert.deepEqual(plan, result.plan);
  assert.deepEqual(plan.repo, REPO_SETTINGS);
  assert.deepEqual(plan.state.order, ["a", "b", "c", "d"]);
  assert.equal(plan.state.stages["a"]?.sessions.length, 1, "stage a is dispatched");
  assert.deepEqual(
    result.effects.map((effect) => effect.type),
    ["dispatchRun", "setTimer", "syncCheckRun", "syncCheckRun", "syncStatusComment", "ensureLabel"],
  );
  // Plain effects keep their key behind the plan's identity; syncs carry the deciding version.
  const dispatch = await store.getEffect(`${PLAN_KEY}|${EFFECT_PREFIX}:a:1:dispatch`);
  assert.deepEqual([dispatch?.effect, dispatch?.enqueuedAt], [result.effects[0], NOW]);
  const check = await store.getEffect(`${PLAN_KEY}|${EFFECT_PREFIX}:a:check|v1`);
  assert.deepEqual(check?.effect, result.effects[2]);
  // Lower lanes first: the dispatch, then the stage's check run and the label, then the overview.
  assert.deepEqual(await claimAll(store, NOW), [
    `${PLAN_KEY}|${EFFECT_PREFIX}:a:1:dispatch`,
    `${PLAN_KEY}|${EFFECT_PREFIX}:a:check|v1`,
    `${PLAN_KEY}|${EFFECT_PREFIX}:@label:loom:hold`,
    `${PLAN_KEY}|${EFFECT_PREFIX}:@plan:check|v1`,
    `${PLAN_KEY}|${EFFECT_PREFIX}:@plan:status-comment|v1`,
  ]);
});

test("the reducer's timers become the plan's timers, beside the wake timer at its next due time", async () => {
  const { store, deps } = await setUp();
  await apply(deps, { events: [opened()], repo: REPO_SETTINGS });
  const watch = NOW + 5 * MINUTE;
  assert.deepEqual(await timersOf(store), [
    { key: `${EFFECT_PREFIX}:a:1:watch:${watch}`, at: watch },
    { key: WAKE_TIMER, at: watch },
  ]);
  assert.equal((await store.countBacklog()).effects, 5, "a timer is no outbox effect");
});

test("the wake timer follows the plan's next due time, and is cancelled once nothing waits on time", async () => {
  const { store, deps, clock } = await setUp();
  // Stage a failed and waits for its retry in 2 minutes: that is when the plan wakes next.
  const failed = makeDiamond({
    a: {
      status: "queued",
      attempt: 1,
      failures: 1,
      retryAt: NOW + 2 * MINUTE,
      sessions: [
        makeSession({ dispatchedAt: NOW, status: "completed", outcome: "crashed", finishedAt: NOW }),
      ],
    },
  });
  await storePlan(store, failed);
  clock.set(NOW + MINUTE);
  assert.ok((await apply(deps, { events: [tick(NOW + MINUTE)] })).ok);
  assert.deepEqual(await timersOf(store), [{ key: WAKE_TIMER, at: NOW + 2 * MINUTE }]);
  clock.set(NOW + 3 * MINUTE);
  const closed = await apply(deps, {
    events: [{ type: "plan.closed", at: NOW + 3 * MINUTE, merged: false }],
  });
  assert.ok(closed.ok);
  assert.deepEqual(await timersOf(store), [], "a closed plan wakes for nothing");
  const { record } = await storedPlan(store);
  assert.equal(record.active, false, "a closed plan is left out of the reconcile");
  assert.deepEqual(await store.listActivePlans(), []);
});

test("events for a plan loom does not have are refused and nothing is written", async () => {
  const { store, deps } = await setUp();
  assert.deepEqual(
    await apply(deps, { events: [opened()] }),
    { ok: false, reason: "no-plan" },
    "no settings",
  );
  assert.deepEqual(
    await apply(deps, { events: [tick(NOW)], repo: REPO_SETTINGS }),
    { ok: false, reason: "no-plan" },
    "a tick for no plan",
  );
  assert.deepEqual(
    await apply(deps, { events: [], repo: REPO_SETTINGS }),
    { ok: false, reason: "no-plan" },
    "no event at all",
  );
  assert.equal(await store.getPlan(KEY), null);
  assert.deepEqual(store.commits, []);
});

test("an event that changes nothing writes nothing: the version stays and nothing is enqueued", async () => {
  const { store, deps } = await setUp();
  await apply(deps, { events: [opened()], repo: REPO_SETTINGS });
  const before = await store.countBacklog();
  const result = await apply(deps, { events: [tick(NOW)] });
  assert.ok(result.ok);
  assert.deepEqual(result.effects, []);
  const { record, plan } = await storedPlan(store);
  assert.deepEqual(result.plan, plan);
  assert.equal(record.version, 1);
  assert.equal(store.commits.length, 1, "only the opening was committed");
  assert.deepEqual(await store.countBacklog(), before);
});

test("a state change with no effect is committed: a new version, nothing enqueued", async () => {
  const { store, deps, clock } = await setUp();
  await apply(deps, { events: [opened()], repo: REPO_SETTINGS });
  const before = await store.countBacklog();
  clock.set(NOW + MINUTE);
  const result = await apply(deps, { events: [tick(NOW + MINUTE)] });
  assert.ok(result.ok);
  assert.deepEqual(result.effects, []);
  const { record, plan } = await storedPlan(store);
  assert.deepEqual([record.version, record.createdAt, record.updatedAt], [2, NOW, NOW + MINUTE]);
  assert.equal(plan.state.updatedAt, NOW + MINUTE);
  assert.deepEqual(await store.countBacklog(), before);
});

test("an effect the app decided is enqueued with the commit, ahead of the reducer's, even when the state stays the same", async () => {
  const { store, deps } = await setUp();
  await apply(deps, { events: [opened()], repo: REPO_SETTINGS });
  const reply: Effect = {
    type: "reply",
    key: "reply:refused:31",
    source: { kind: "comment", commentId: 31 },
    reaction: "-1",
    body: "Only people with write access can steer loom.",
  };
  const result = await apply(deps, { events: [tick(NOW)], effects: [reply] });
  assert.ok(result.ok);
  assert.deepEqual(result.effects, [reply]);
  assert.equal((await storedPlan(store)).record.version, 2);
  assert.deepEqual((await store.getEffect(`${PLAN_KEY}|reply:refused:31`))?.effect, reply);
  // Several events: each decided on the state the one before left, effects in order.
  const both = await apply(deps, {
    events: [
      { type: "run.dispatched", at: NOW, stageId: "a", attempt: 1, runId: 55 },
      { type: "run.started", at: NOW, stageId: "a", attempt: 1, runId: 55 },
    ],
    effects: [reply],
  });
  assert.ok(both.ok);
  assert.equal(both.effects[0], reply);
  assert.equal(both.plan.state.stages["a"]?.sessions[0]?.runId, 55);
  assert.equal(both.plan.state.stages["a"]?.sessions[0]?.status, "running");
});

test("settings a pull request event brings replace the stored ones; other events keep them", async () => {
  const { store, deps, clock } = await setUp();
  await apply(deps, { events: [opened()], repo: REPO_SETTINGS });
  const fresh = { ...REPO_SETTINGS, labelPrefix: "weave", defaultBranch: "trunk" };
  clock.set(NOW + MINUTE);
  const result = await apply(deps, { events: [tick(NOW + MINUTE)], repo: fresh });
  assert.ok(result.ok);
  assert.deepEqual((await storedPlan(store)).plan.repo, fresh);
  clock.set(NOW + 2 * MINUTE);
  await apply(deps, { events: [tick(NOW + 2 * MINUTE)] });
  assert.deepEqual((await storedPlan(store)).plan.repo, fresh);
  // New settings alone change the stored plan: it is committed.
  const back = await apply(deps, { events: [tick(NOW + 2 * MINUTE)], repo: REPO_SETTINGS });
  assert.ok(back.ok);
  const { record, plan } = await storedPlan(store);
  assert.deepEqual([record.version, plan.repo], [4, REPO_SETTINGS]);
});

test("a newer sync of a check run or the status comment replaces the one still waiting; other effects stay", async () => {
  const { store, deps, clock } = await setUp();
  await apply(deps, { events: [opened()], repo: REPO_SETTINGS });
  clock.set(NOW + MINUTE);
  // The head moves: the plan's check run and the status comment are synced again (version 2).
  const moved = await apply(deps, {
    events: [{ type: "head.moved", at: NOW + MINUTE, headSha: "c".repeat(40), before: HEAD }],
  });
  assert.ok(moved.ok);
  for (const name of ["@plan:check", "@plan:status-comment"]) {
    assert.equal(await store.getEffect(`${PLAN_KEY}|${EFFECT_PREFIX}:${name}|v1`), null, `${name} v1`);
    assert.ok(await store.getEffect(`${PLAN_KEY}|${EFFECT_PREFIX}:${name}|v2`), `${name} v2`);
  }
  assert.deepEqual(await claimAll(store, NOW + MINUTE), [
    `${PLAN_KEY}|${EFFECT_PREFIX}:a:1:dispatch`,
    `${PLAN_KEY}|${EFFECT_PREFIX}:a:check|v1`,
    `${PLAN_KEY}|${EFFECT_PREFIX}:@label:loom:hold`,
    `${PLAN_KEY}|${EFFECT_PREFIX}:@plan:check|v2`,
    `${PLAN_KEY}|${EFFECT_PREFIX}:@plan:status-comment|v2`,
  ]);
});

test(`a stage check run that only follows the head waits ${FOLLOW_DELAY_MS} ms; other syncs are due at once`, async () => {
  const { store, deps } = await setUp();
  const cases: [number, Effect, number][] = [
    [1, { type: "syncCheckRun", key: "k:a:check", stageId: "a", follow: true }, FOLLOW_DELAY_MS],
    [2, { type: "syncCheckRun", key: "k:a:check", stageId: "a" }, 0],
    [3, { type: "syncStatusComment", key: "k:@plan:status-comment" }, 0],
    [4, { type: "syncCheckRun", key: "k:@plan:check", stageId: null }, 0],
    [
      5,
      {
        type: "dispatchRun",
        key: "k:a:1:dispatch",
        stageId: "a",
        attempt: 1,
        kind: "stage",
        branch: "loom/a",
        previousRunId: null,
      },
      0,
    ],
  ];
  for (const [pr] of cases) await storePlan(store, makeDiamond(), key(pr));
  for (const [pr, effect] of cases)
    assert.ok((await applyEvents(deps, { key: key(pr), events: [], effects: [effect] })).ok);
  /** The plans whose effect is due at `at` (completed once claimed). */
  const due = async (at: number) => {
    const claimed = await store.claimEffects("peek", 10, 0, at);
    for (const effect of claimed) await store.completeEffect(effect.key, null, at);
    return claimed.map((effect) => effect.planKey.pr);
  };
  // Lower lanes first: the dispatch, the stage's check run, then the overview.
  assert.deepEqual(await due(NOW), [5, 2, 3, 4], "due at once");
  assert.deepEqual(await due(NOW + FOLLOW_DELAY_MS - 1), [], "the follow sync waits");
  assert.deepEqual(await due(NOW + FOLLOW_DELAY_MS), [1]);
});

test("the committed change counts stage sessions that ended since the stored state, and a closed plan's duration from its opening", async () => {
  const { store, deps, metrics, clock } = await setUp({ withMetrics: true });
  // Stage a's session ended before: it was counted when it did.
  const ended = makeDiamond({
    a: {
      status: "queued",
      attempt: 1,
      sessions: [
        makeSession({ dispatchedAt: NOW, status: "completed", outcome: "crashed", finishedAt: NOW }),
      ],
    },
  });
  await storePlan(store, ended);
  clock.set(NOW + 90_000);
  await apply(deps, { events: [{ type: "plan.closed", at: NOW + 90_000, merged: false }] });
  const text = await metrics.registry.metrics();
  assert.doesNotMatch(text, /^loom_stage_outcomes_total\{/m, "no session ended in this change");
  assert.match(text, /^loom_plan_duration_seconds_count\{end="closed"\} 1$/m);
  assert.match(text, /^loom_plan_duration_seconds_sum\{end="closed"\} 90$/m);
});

test("opening a plan counts nothing yet: no session has ended and the plan goes on", async () => {
  const { store, deps, metrics } = await setUp({ withMetrics: true });
  assert.ok((await apply(deps, { events: [opened()], repo: REPO_SETTINGS })).ok);
  assert.equal((await storedPlan(store)).record.version, 1);
  const text = await metrics.registry.metrics();
  assert.doesNotMatch(text, /^loom_stage_outcomes_total\{/m);
  assert.doesNotMatch(text, /^loom_plan_duration_seconds_count\{/m);
});

test("a session that ends in the committed change is counted by outcome and kind", async () => {
  const { store, deps, metrics, clock } = await setUp({ withMetrics: true });
  await storePlan(
    store,
    makeDiamond({ a: { status: "executing", attempt: 1, sessions: [makeSession({ runId: 55 })] } }),
  );
  clock.set(NOW + MINUTE);
  const result = await apply(deps, {
    events: [
      {
        type: "run.finished",
        at: NOW + MINUTE,
        stageId: "a",
        attempt: 1,
        runId: 55,
        outcome: "crashed",
        detail: "boom",
      },
    ],
  });
  assert.ok(result.ok);
  const text = await metrics.registry.metrics();
  assert.match(text, /^loom_stage_outcomes_total\{outcome="crashed",kind="stage"\} 1$/m);
  assert.doesNotMatch(text, /^loom_plan_duration_seconds_count\{/m, "the plan goes on");
});

test("losing the compare-and-swap re-reads the plan and decides again on the other writer's state", async () => {
  const { store, inner, deps, lines } = await setUp();
  await apply(deps, { events: [opened()], repo: REPO_SETTINGS });
  // Another replica records the dispatch's run id just before this commit: this one loses.
  store.before = async () => {
    const other = await applyEvents(
      { ...deps, store: inner },
      { key: KEY, events: [{ type: "run.dispatched", at: NOW, stageId: "a", attempt: 1, runId: 55 }] },
    );
    assert.ok(other.ok);
  };
  const result = await apply(deps, { events: [{ type: "labels.changed", at: NOW, labels: ["loom:hold"] }] });
  assert.ok(result.ok);
  const { record, plan } = await storedPlan(store);
  assert.equal(record.version, 3);
  assert.equal(plan.state.hold, true, "this event landed");
  assert.equal(plan.state.stages["a"]?.sessions[0]?.runId, 55, "on the other writer's state");
  assert.deepEqual(
    store.commits.slice(1).map((commit) => commit.expectedVersion),
    [1, 2],
    "the lost commit, then the one decided again on the other writer's version",
  );
  assert.deepEqual(
    lines
      .filter((line) => line.msg === "plan changed meanwhile; deciding again")
      .map((line) => [line.level, line.planKey, line.attempt]),
    [[20, PLAN_KEY, 1]],
  );
});

test(`an event still lands after ${MAX_CAS_ATTEMPTS - 1} lost compare-and-swaps in a row`, async () => {
  const { store, deps, clock } = await setUp();
  await apply(deps, { events: [opened()], repo: REPO_SETTINGS });
  store.lose(MAX_CAS_ATTEMPTS - 1);
  clock.set(NOW + MINUTE);
  const result = await apply(deps, { events: [tick(NOW + MINUTE)] });
  assert.ok(result.ok);
  assert.equal((await storedPlan(store)).record.version, 2);
  assert.equal(store.commits.length, 1 + MAX_CAS_ATTEMPTS);
  assert.equal((await store.countBacklog()).deliveries, 0, "nothing parked");
});

test(`events that lose ${MAX_CAS_ATTEMPTS} compare-and-swaps in a row are parked in the inbox with the reason, due after the first backoff`, async () => {
  const { store, deps, clock, lines } = await setUp();
  await apply(deps, { events: [opened()], repo: REPO_SETTINGS });
  store.lose(MAX_CAS_ATTEMPTS);
  clock.set(NOW + MINUTE);
  const events = [tick(NOW + MINUTE)];
  const result = await apply(deps, { events, repo: REPO_SETTINGS });
  assert.equal(result.ok, false);
  assert.ok(!result.ok && result.reason === "parked");
  assert.match(result.parkedId, new RegExp(`^${PARKED_EVENTS}:[0-9a-f-]{36}$`));
  assert.equal(store.commits.length, 1 + MAX_CAS_ATTEMPTS, "each attempt decided and tried once");
  assert.equal((await storedPlan(store)).record.version, 1, "nothing committed");
  const reason = `the plan changed ${MAX_CAS_ATTEMPTS} times in a row while these events were applied`;
  const parked = await store.getDelivery(result.parkedId);
  assert.deepEqual(
    [
      parked?.name,
      parked?.attempts,
      parked?.lastError,
      parked?.receivedAt,
      parked?.availableAt,
      parked?.completedAt,
    ],
    [PARKED_EVENTS, 0, reason, NOW + MINUTE, NOW + MINUTE + 5_000, null],
  );
  assert.deepEqual(await store.claimDeliveries("w", 10, 1_000, NOW + MINUTE + 4_999), []);
  const [claimed] = await store.claimDeliveries("w", 10, 1_000, NOW + MINUTE + 5_000);
  assert.deepEqual(claimed?.payload, { key: KEY, events, repo: REPO_SETTINGS });
  const warned = lines.filter((line) => line.level === 40).map((line) => line.msg);
  assert.deepEqual(warned, ["events parked in the inbox; they are applied again later"]);
  assert.equal(
    lines.filter((line) => line.msg === "plan changed meanwhile; deciding again").length,
    MAX_CAS_ATTEMPTS,
  );
});

test("app effects that keep losing are parked with them, the stored settings left out when none came", async () => {
  const { store, deps } = await setUp();
  await apply(deps, { events: [opened()], repo: REPO_SETTINGS });
  store.lose(MAX_CAS_ATTEMPTS);
  const reply: Effect = {
    type: "reply",
    key: "reply:help:9",
    source: { kind: "comment", commentId: 9 },
    reaction: "eyes",
    body: "help",
  };
  const result = await apply(deps, { events: [], effects: [reply] });
  assert.ok(!result.ok && result.reason === "parked");
  const [claimed] = await store.claimDeliveries("w", 10, 1_000, NOW + 5_000);
  assert.deepEqual(claimed?.payload, { key: KEY, events: [], effects: [reply] });
});

test("the inbox applying parked events has a conflict reported, not parked again; nothing to apply is never parked", async () => {
  const { store, deps, lines } = await setUp();
  await apply(deps, { events: [opened()], repo: REPO_SETTINGS });
  const reason = `the plan changed ${MAX_CAS_ATTEMPTS} times in a row while these events were applied`;
  store.lose(MAX_CAS_ATTEMPTS);
  const reported = await apply(deps, { events: [tick(NOW + MINUTE)], onConflict: "report" });
  assert.deepEqual(reported, { ok: false, reason: "conflict" });
  // A commit with neither events nor effects (only fresh settings) has nothing worth parking.
  store.lose(MAX_CAS_ATTEMPTS);
  const settings = await apply(deps, { events: [], repo: { ...REPO_SETTINGS, labelPrefix: "weave" } });
  assert.deepEqual(settings, { ok: false, reason: "conflict" });
  assert.equal((await store.countBacklog()).deliveries, 0, "nothing parked");
  assert.deepEqual(
    lines.filter((line) => line.level === 40).map((line) => [line.msg, line.planKey]),
    [
      [reason, PLAN_KEY],
      [reason, PLAN_KEY],
    ],
  );
});
