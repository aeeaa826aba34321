import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, test } from "node:test";
import pino from "pino";
import { ProbotOctokit } from "probot";
import { createEngine } from "../../app/engine/create-engine.ts";
import type { Engine } from "../../app/engine/create-engine.ts";
import type { EngineDeps } from "../../app/engine/engine-deps.ts";
import type { PlanKey, Store } from "../../app/store/store.ts";
import { DISPLAY_LANE, PROGRESS_LANE } from "../../src/orchestrator/effect-lane.ts";
import { makeDiamond } from "../status/make-plan-state.ts";
import { openTempStore } from "./loom-harness.ts";
import { DEMO_KEY, REPO_SETTINGS } from "./stored-plan-fixture.ts";

/*
 * The App's worker, as an operator relies on it: a drain works off the inbox, the outbox and the
 * due timers until nothing is left (a plan's progress first, and never forever); a reconcile
 * drains and forgets deliveries older than 14 days; `start` first takes back what this worker's
 * previous process had claimed, then polls; `stop` ends the polling and waits for the work in
 * flight, leaving the rest in the store for any replica. Here on a real temporary store, with
 * GitHub answered at the network.
 */

const T0 = Date.UTC(2026, 10, 27, 16, 0, 0);
const DAY = 24 * 3600 * 1000;
const KEY = DEMO_KEY;
const WORKER = "worker-1";

type Line = { level: number; msg: string; err?: { message: string }; [field: string]: unknown };

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const undo of cleanups.splice(0).reverse()) await undo();
});

/** The branch clean-up of stage `id` (progress lane) and a label definition (display lane). */
const deleteBranch = (id: string) => ({
  key: `k:delete-${id}`,
  lane: PROGRESS_LANE,
  effect: { key: `k:delete-${id}`, type: "deleteBranch", branch: `loom/pr-7/PLAN-demo/${id}` },
});
const ensureLabel = (name: string) => ({
  key: `k:label-${name}`,
  lane: DISPLAY_LANE,
  effect: {
    key: `k:label-${name}`,
    type: "ensureLabel",
    label: { name, color: "ededed", description: "x" },
  },
});

type SetUp = {
  store: Store;
  deps: EngineDeps;
  engine: Engine;
  lines: Line[];
  /** GitHub's requests, in order: `METHOD path`. */
  requests: string[];
  /** The most requests GitHub had in flight at once. */
  maxInFlight: () => number;
};

/** An engine on a fresh temporary store; `wrap` may stand between the engine and the store. */
async function setUp(
  options: { wrap?: (store: Store) => Store; stopping?: AbortSignal; githubDelayMs?: number } = {},
): Promise<SetUp> {
  const { store, close } = await openTempStore();
  cleanups.push(close);
  let time = T0;
  const lines: Line[] = [];
  const requests: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const fetch = async (url: string, init?: RequestInit) => {
    const method = init?.method ?? "GET";
    requests.push(`${method} ${new URL(url).pathname}`);
    maxInFlight = Math.max(maxInFlight, ++inFlight);
    if (options.githubDelayMs !== undefined) await sleep(options.githubDelayMs);
    inFlight--;
    // A pull request the reconcile reads again: GitHub says it was closed meanwhile.
    if (/\/pulls\/\d+$/.test(url))
      return new Response(JSON.stringify(CLOSED_PULL), {
        status: 200,
        headers: { "content-type": "application/json" },
      });
    return method === "DELETE"
      ? new Response(null, { status: 204 })
      : new Response(JSON.stringify({ id: 1, name: "x" }), {
          status: 201,
          headers: { "content-type": "application/json" },
        });
  };
  const Octokit = ProbotOctokit.defaults({ retry: { enabled: false }, throttle: { enabled: false } });
  const deps: EngineDeps = {
    store: options.wrap ? options.wrap(store) : store,
    getOctokit: () => Promise.resolve(new Octokit({ auth: "t", request: { fetch } })),
    now: () => (time += 1),
    workerId: WORKER,
    log: pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line) as Line) }),
    getBotLogin: () => Promise.resolve("loom[bot]"),
    ...(options.stopping ? { stopping: options.stopping } : {}),
  };
  const engine = createEngine(deps);
  cleanups.push(() => engine.stop());
  return {
    store,
    deps,
    engine,
    lines,
    requests,
    maxInFlight: () => maxInFlight,
  };
}

const CLOSED_PULL = {
  number: 7,
  state: "closed",
  merged: false,
  user: { login: "alice" },
  labels: [],
  head: { ref: "feature/demo", sha: "a".repeat(40), repo: { full_name: "acme/widgets" } },
  base: { ref: "main" },
};

/**
 * A plan (pull request 7's demo plan unless `key`), held so a tick dispatches nothing, with
 * `effects` in its outbox and `timers`; `quiet`: its last update is later than the test's clock,
 * so a tick changes nothing.
 */
async function commitPlan(
  store: Store,
  effects: { key: string; lane: number; effect: unknown }[],
  options: { timers?: { key: string; at: number }[]; key?: PlanKey; active?: boolean; quiet?: boolean } = {},
) {
  const state = { ...makeDiamond(), hold: true, ...(options.quiet === true ? { updatedAt: T0 + DAY } : {}) };
  await store.commitPlan(options.key ?? KEY, {
    expectedVersion: 0,
    state: { format: 1, state, repo: REPO_SETTINGS },
    active: options.active ?? false,
    effects,
    timers: options.timers ?? [],
    now: T0,
  });
}

/** A webhook loom does not act on: processed without any work. */
const ping = (store: Store, id: string, receivedAt = T0) =>
  store.recordDelivery({ id, name: "ping", payload: { zen: "hi" }, receivedAt });

const completedAt = async (store: Store, id: string) => (await store.getDelivery(id))?.completedAt ?? null;
const effectDoneAt = async (store: Store, key: string) => {
  const record = await store.getEffect(key);
  return record?.status === "done" ? record.completedAt : null;
};

/** Polls `check` until it holds (the engine's intervals run on real time). */
async function eventually(check: () => Promise<boolean>, what: string) {
  for (let waited = 0; waited < 5_000; waited += 10) {
    if (await check()) return;
    await sleep(10);
  }
  assert.fail(`never happened: ${what}`);
}

test("a drain carries out a plan's progress effects before the inbox, then everything else, until nothing is left", async () => {
  const { store, engine, requests, lines } = await setUp();
  await commitPlan(store, [ensureLabel("one"), ensureLabel("two"), deleteBranch("a"), deleteBranch("b")], {
    timers: [{ key: "wake", at: T0 }],
  });
  for (const id of ["d1", "d2", "d3"]) await ping(store, id);
  await engine.drain();
  // Then what the labels' events decided (the check runs brought up to date).
  assert.deepEqual(requests.slice(0, 4), [
    "DELETE /repos/acme/widgets/git/refs/heads%2Floom%2Fpr-7%2FPLAN-demo%2Fa",
    "DELETE /repos/acme/widgets/git/refs/heads%2Floom%2Fpr-7%2FPLAN-demo%2Fb",
    "POST /repos/acme/widgets/labels",
    "POST /repos/acme/widgets/labels",
  ]);
  const deleted = (await effectDoneAt(store, "k:delete-b")) ?? Infinity;
  const inbox = await Promise.all(["d1", "d2", "d3"].map((id) => completedAt(store, id)));
  for (const at of inbox) assert.ok(at !== null && at > deleted, "the inbox after the plan's progress");
  assert.notEqual(await effectDoneAt(store, "k:label-two"), null, "the second label, in a later round");
  assert.deepEqual(await store.claimDueTimers("other", T0 + DAY, 10, 60_000), [], "the due timer fired");
  const plan = await store.getPlan(KEY);
  assert.ok(plan !== null && plan.version > 1, "its tick and the labels' events were committed");
  assert.deepEqual(
    lines.filter((line) => line.msg.startsWith("drain stopped")),
    [],
    "it ended because nothing was left",
  );
});

const planKey = (pr: number): PlanKey => ({ ...KEY, pr });

for (const [name, deliveries, timers] of [
  ["effects alone", 0, 0],
  ["as many deliveries as effects in a round", 4, 0],
  ["as many due timers as effects in a round", 0, 4],
] as const)
  test(`a drain does not end while work is left, whatever the round's mix (${name})`, async () => {
    const { store, engine } = await setUp();
    // Two plans, each with one progress effect and two label definitions (one of each a round).
    for (const pr of [7, 8])
      await commitPlan(store, [deleteBranch(`a${pr}`), ensureLabel(`one${pr}`), ensureLabel(`two${pr}`)], {
        key: planKey(pr),
      });
    for (let n = 0; n < deliveries; n++) await ping(store, `d${n}`);
    for (let n = 0; n < timers; n++)
      await commitPlan(store, [], { key: planKey(20 + n), quiet: true, timers: [{ key: "retry", at: T0 }] });
    await engine.drain();
    for (const pr of [7, 8])
      for (const effect of [`k:delete-a${pr}`, `k:label-one${pr}`, `k:label-two${pr}`])
        assert.notEqual(await effectDoneAt(store, effect), null, effect);
    for (let n = 0; n < deliveries; n++) assert.notEqual(await completedAt(store, `d${n}`), null);
    assert.deepEqual(await store.claimDueTimers("other", T0 + DAY, 10, 60_000), []);
  });

test("a drain never runs forever: under a flood of webhooks it stops after 200 rounds, says so, and the next poll goes on", async () => {
  let claims = 0;
  const { engine, lines } = await setUp({
    // An inbox that never empties: every claim finds a full batch of new webhooks.
    wrap: (real) =>
      Object.assign(Object.create(real) as Store, {
        claimDeliveries: (_owner: string, limit: number) => {
          claims++;
          return Promise.resolve(
            Array.from({ length: limit }, (_, n) => ({
              id: `flood-${claims}-${n}`,
              name: "ping",
              payload: {},
              receivedAt: T0,
              attempts: 1,
              leaseUntil: T0 + 120_000,
              lastError: null,
            })),
          );
        },
      }),
  });
  await engine.drain();
  assert.equal(claims, 200, "one claim a round");
  assert.deepEqual(
    lines.filter((line) => line.level >= 40).map((line) => line.msg),
    ["drain stopped after its round limit; the next poll continues"],
  );
  await engine.drain();
  assert.equal(claims, 400, "the next drain takes over");
});

test("a plan's progress lane that never empties still lets the inbox in after 200 passes", async () => {
  let progressClaims = 0;
  let claimsBeforeInbox: number | undefined;
  const { engine } = await setUp({
    wrap: (real) =>
      Object.assign(Object.create(real) as Store, {
        // Progress effects keep coming (their plan is gone: each is given up at once).
        claimEffects: (...args: Parameters<Store["claimEffects"]>) => {
          if (args[4] !== PROGRESS_LANE || progressClaims >= 1_000) return real.claimEffects(...args);
          progressClaims++;
          return Promise.resolve([
            {
              key: `flood-${progressClaims}`,
              planKey: { ...KEY, pr: 99 },
              effect: deleteBranch("x").effect,
              attempts: 1,
              lastError: null,
              leaseUntil: T0 + 120_000,
              enqueuedAt: T0,
            },
          ]);
        },
        claimDeliveries: (...args: Parameters<Store["claimDeliveries"]>) => {
          claimsBeforeInbox ??= progressClaims;
          return real.claimDeliveries(...args);
        },
      }),
  });
  await engine.drain();
  assert.equal(claimsBeforeInbox, 200, "the inbox's turn came after 200 passes");
  assert.equal(progressClaims, 1_000);
});

test("a drain asked for while one runs never runs beside it: GitHub sees one request at a time", async () => {
  const { store, engine, requests, maxInFlight } = await setUp({ githubDelayMs: 100 });
  await commitPlan(store, [deleteBranch("a")]);
  const first = engine.drain();
  await eventually(() => Promise.resolve(requests.length === 1), "the first effect's request sent");
  await commitPlan(store, [deleteBranch("b")], { key: { ...KEY, pr: 8 } });
  const second = engine.drain();
  await Promise.all([first, second]);
  assert.deepEqual(
    [requests.length, maxInFlight()],
    [2, 1],
    "the second drain's work waited for the first's",
  );
  assert.notEqual(await effectDoneAt(store, "k:delete-b"), null, "and its work was done before it returned");
});

test("a drain asked for while one runs makes it look once more, and its caller waits for that", async () => {
  const started: { engine?: Engine; second?: Promise<void> } = {};
  let rounds = 0;
  const { store, engine } = await setUp({
    wrap: (real) =>
      Object.assign(Object.create(real) as Store, {
        // The round's last claim finds nothing: a webhook arrives now, and asks for a drain.
        claimDueTimers: async (...args: Parameters<Store["claimDueTimers"]>) => {
          const due = await real.claimDueTimers(...args);
          if (++rounds === 2) {
            await ping(real, "late");
            started.second = started.engine?.drain();
          }
          return due;
        },
      }),
  });
  started.engine = engine;
  await ping(store, "early");
  await engine.drain();
  assert.notEqual(await completedAt(store, "early"), null);
  assert.notEqual(await completedAt(store, "late"), null, "looked once more before returning");
  assert.ok(started.second !== undefined, "the second drain was asked for");
  await started.second;
});

test("wake drains in the background and idle waits for it; a failed drain is logged and the next one works", async () => {
  let failures = 1;
  const { store, engine, lines } = await setUp({
    wrap: (real) =>
      Object.assign(Object.create(real) as Store, {
        claimDeliveries: (...args: Parameters<Store["claimDeliveries"]>) =>
          failures-- > 0 ? Promise.reject(new Error("database gone")) : real.claimDeliveries(...args),
      }),
  });
  await ping(store, "d1");
  engine.wake();
  await eventually(() => Promise.resolve(lines.length > 0), "the failure logged");
  assert.equal(await completedAt(store, "d1"), null);
  assert.deepEqual(
    lines.filter((line) => line.level >= 50).map((line) => [line.msg, line.err?.message]),
    [["drain failed", "database gone"]],
  );
  engine.wake();
  await engine.idle();
  assert.notEqual(await completedAt(store, "d1"), null, "the next drain works");
});

test("a drain that fails while idle or stop waits for it settles them both: shutdown never throws for it", async () => {
  let fail: ((error: Error) => void) | undefined;
  const { store, engine, lines } = await setUp({
    wrap: (real) =>
      Object.assign(Object.create(real) as Store, {
        claimDeliveries: () =>
          new Promise<never>((_, reject) => {
            fail = reject;
          }),
      }),
  });
  await ping(store, "d1");
  engine.wake();
  await eventually(() => Promise.resolve(fail !== undefined), "the claim under way");
  const idle = engine.idle();
  const stop = engine.stop();
  fail?.(new Error("database gone"));
  await idle;
  await stop;
  assert.deepEqual(
    lines.filter((line) => line.level >= 50).map((line) => [line.msg, line.err?.message]),
    [["drain failed", "database gone"]],
  );
  assert.equal(await completedAt(store, "d1"), null, "left in the store for the next start");
});

test("a reconcile drains, then forgets processed deliveries older than 14 days and logs how many", async () => {
  const { store, engine, lines } = await setUp();
  for (const [id, age] of [
    ["old", 14 * DAY + 5],
    ["recent", 14 * DAY - 1_000],
  ] as const) {
    await ping(store, id, T0 - age);
    await store.completeDelivery(id, T0 - age);
  }
  await ping(store, "waiting");
  await engine.reconcile();
  assert.notEqual(await completedAt(store, "waiting"), null, "drained");
  assert.equal(await store.getDelivery("old"), null, "forgotten");
  assert.notEqual(await store.getDelivery("recent"), null, "kept: a redelivery may still come");
  assert.deepEqual(
    lines.filter((line) => line.msg === "old deliveries pruned").map((line) => line.pruned),
    [1],
  );
  // Nothing old enough now: nothing said.
  await engine.reconcile();
  assert.notEqual(await store.getDelivery("recent"), null);
  assert.equal(lines.filter((line) => line.msg === "old deliveries pruned").length, 1);
});

test("start first takes back the work this worker's previous process had leased, says how much, and reconciles at once", async () => {
  const { store, engine, lines } = await setUp();
  await ping(store, "claimed-before-restart");
  await store.claimDeliveries(WORKER, 10, 3_600_000, T0);
  await ping(store, "other-worker");
  await store.claimDeliveries("worker-2", 10, 3_600_000, T0);
  await ping(store, "old", T0 - 20 * DAY);
  await store.completeDelivery("old", T0 - 20 * DAY);
  engine.start({ pollMs: 3_600_000, reconcileMs: 3_600_000 });
  await eventually(async () => (await store.getDelivery("old")) === null, "the first reconcile's pruning");
  await engine.drain();
  assert.notEqual(await completedAt(store, "claimed-before-restart"), null, "taken back and processed");
  assert.equal(await completedAt(store, "other-worker"), null, "another worker's lease is its own");
  const line = lines.find((entry) => entry.msg === "took back work leased to this worker before a restart");
  assert.deepEqual([line?.freed, line?.workerId], [1, WORKER]);
});

test("a start with nothing leased says nothing of leases; one whose leases cannot be freed warns and works all the same", async () => {
  const quiet = await setUp();
  quiet.engine.start({ pollMs: 3_600_000, reconcileMs: 3_600_000 });
  await quiet.engine.stop();
  assert.deepEqual(
    quiet.lines.map((line) => line.msg),
    [],
  );

  const { store, engine, lines } = await setUp({
    wrap: (real) =>
      Object.assign(Object.create(real) as Store, {
        releaseLeases: () => Promise.reject(new Error("database gone")),
      }),
  });
  await ping(store, "d1");
  engine.start({ pollMs: 3_600_000, reconcileMs: 3_600_000 });
  await engine.drain();
  assert.notEqual(await completedAt(store, "d1"), null);
  const warnings = lines.filter((line) => line.level === 40);
  assert.deepEqual(
    warnings.map((line) => [line.msg, line.err?.message]),
    [["could not free this worker's old leases; they end on their own", "database gone"]],
  );
});

test("once started, webhooks are worked off at every poll and old deliveries forgotten at every reconcile interval", async () => {
  const polled = await setUp();
  polled.engine.start({ pollMs: 20, reconcileMs: 3_600_000 });
  await polled.engine.drain();
  await ping(polled.store, "d1");
  await eventually(async () => (await completedAt(polled.store, "d1")) !== null, "a poll's drain");

  const reconciled = await setUp();
  reconciled.engine.start({ pollMs: 3_600_000, reconcileMs: 20 });
  await reconciled.engine.drain();
  await ping(reconciled.store, "old", T0 - 20 * DAY);
  await reconciled.store.completeDelivery("old", T0 - 20 * DAY);
  await eventually(async () => (await reconciled.store.getDelivery("old")) === null, "a reconcile's pruning");
});

test("a reconcile that fails is logged, and the polling goes on", async () => {
  let failures = 1;
  const { store, engine, lines } = await setUp({
    wrap: (real) =>
      Object.assign(Object.create(real) as Store, {
        listActivePlans: () =>
          failures-- > 0 ? Promise.reject(new Error("database gone")) : real.listActivePlans(),
      }),
  });
  engine.start({ pollMs: 20, reconcileMs: 3_600_000 });
  await eventually(
    () => Promise.resolve(lines.some((line) => line.msg === "reconcile failed")),
    "the failure logged",
  );
  assert.equal(lines.find((line) => line.msg === "reconcile failed")?.err?.message, "database gone");
  await ping(store, "d1");
  await eventually(async () => (await completedAt(store, "d1")) !== null, "a poll's drain");
});

test("a failure at a poll is logged as a failed drain, one at a reconcile interval as a failed reconcile", async () => {
  let failing = false;
  const fail = <T>(work: () => Promise<T>) => (failing ? Promise.reject(new Error("database gone")) : work());
  const { engine, lines } = await setUp({
    wrap: (real) =>
      Object.assign(Object.create(real) as Store, {
        claimDeliveries: (...args: Parameters<Store["claimDeliveries"]>) =>
          fail(() => real.claimDeliveries(...args)),
        listActivePlans: () => fail(() => real.listActivePlans()),
      }),
  });
  engine.start({ pollMs: 20, reconcileMs: 30 });
  await engine.drain();
  failing = true;
  const failed = (msg: string) => () => Promise.resolve(lines.some((line) => line.msg === msg));
  await eventually(failed("drain failed"), "a poll's failure logged");
  await eventually(failed("reconcile failed"), "a reconcile's failure logged");
});

test("stop waits for the effect in flight, ends the polling, and leaves later work in the store; a new start takes it", async () => {
  const { store, engine, requests } = await setUp({ githubDelayMs: 100 });
  await commitPlan(store, [deleteBranch("a")]);
  engine.start({ pollMs: 20, reconcileMs: 3_600_000 });
  await eventually(() => Promise.resolve(requests.length === 1), "the effect's request sent");
  await engine.stop();
  assert.notEqual(await effectDoneAt(store, "k:delete-a"), null, "finished before stop returned");
  await ping(store, "after-stop");
  await sleep(80);
  assert.equal(await completedAt(store, "after-stop"), null, "no poll after stop");
  await ping(store, "old", T0 - 20 * DAY);
  await store.completeDelivery("old", T0 - 20 * DAY);
  await engine.drain();
  await engine.reconcile();
  assert.equal(await completedAt(store, "after-stop"), null, "a stopped engine takes no work");
  assert.notEqual(await store.getDelivery("old"), null, "and prunes nothing");
  engine.start({ pollMs: 3_600_000, reconcileMs: 3_600_000 });
  await engine.drain();
  assert.notEqual(await completedAt(store, "after-stop"), null, "started again");
});

test("stop during a round lets that round finish but starts no other: later work stays in the store", async () => {
  const { store, engine, requests, lines } = await setUp({ githubDelayMs: 100 });
  await commitPlan(store, [deleteBranch("a"), deleteBranch("b"), deleteBranch("c")]);
  engine.wake();
  await eventually(() => Promise.resolve(requests.length === 1), "the first effect's request sent");
  await engine.stop();
  assert.notEqual(await effectDoneAt(store, "k:delete-a"), null, "the effect in flight finished");
  assert.equal(await effectDoneAt(store, "k:delete-c"), null, "no new round after stop");
  assert.deepEqual(
    lines.filter((line) => line.level >= 40).map((line) => line.msg),
    [],
    "a drain ended by stop is no round limit: nothing to warn of",
  );
});

test("stop waits for a reconcile in flight: the pull request it was reading again is healed before stop returns", async () => {
  const { store, engine, requests } = await setUp({ githubDelayMs: 100 });
  await commitPlan(store, [], { active: true });
  engine.start({ pollMs: 3_600_000, reconcileMs: 3_600_000 });
  await eventually(() => Promise.resolve(requests.length === 1), "the pull request's read sent");
  await engine.stop();
  assert.equal((await store.getPlan(KEY))?.active, false, "closed, as GitHub said");
});

test("on a slow database, a started worker claims nothing before its old leases are freed", async () => {
  const { store, engine } = await setUp({
    wrap: (real) =>
      Object.assign(Object.create(real) as Store, {
        releaseLeases: async (owner: string) => {
          await sleep(200);
          return real.releaseLeases(owner);
        },
      }),
  });
  await ping(store, "claimed-before-restart");
  await store.claimDeliveries(WORKER, 10, 3_600_000, T0);
  engine.start({ pollMs: 3_600_000, reconcileMs: 3_600_000 });
  await engine.drain();
  assert.notEqual(
    await completedAt(store, "claimed-before-restart"),
    null,
    "the drain waited for the release",
  );
});

test("a worker whose process is stopping claims nothing: the work stays in the store for another replica", async () => {
  const halt = new AbortController();
  halt.abort();
  const { store, engine } = await setUp({ stopping: halt.signal });
  await commitPlan(store, [deleteBranch("a")]);
  await ping(store, "d1");
  await engine.drain();
  assert.equal(await completedAt(store, "d1"), null);
  assert.equal((await store.claimDeliveries("worker-2", 10, 60_000, T0 + DAY)).length, 1, "not leased");
  assert.equal((await store.claimEffects("worker-2", 10, 60_000, T0 + DAY)).length, 1, "not leased");
});
