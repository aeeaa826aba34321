import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import pino from "pino";
import { ProbotOctokit } from "probot";
import type { EngineDeps } from "../../app/engine/engine-deps.ts";
import { runEffects } from "../../app/engine/run-effects.ts";
import { GITHUB_WRITE_LIMITS, limitsForThisWrite } from "../../app/github/write-limiter.ts";
import { createMetrics } from "../../app/metrics/create-metrics.ts";
import type { Store } from "../../app/store/store.ts";
import { makeDiamond } from "../status/make-plan-state.ts";
import { openTempStore } from "./loom-harness.ts";
import { DEMO_KEY, REPO_SETTINGS } from "./stored-plan-fixture.ts";

/*
 * How one claimed effect is carried out: on the installation's Octokit, its writes counted in its
 * lane's share of GitHub's write window (a display write leaves a reserve for progress), its
 * events through the reducer, its result and latency recorded; a GitHub failure leaves it for a
 * later attempt with the reason.
 */

const NOW = Date.UTC(2026, 10, 27, 10, 0, 0);
const KEY = DEMO_KEY;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const undo of cleanups.splice(0).reverse()) await undo();
});

type Seen = { method: string; url: string; windowLimit: number | undefined };

/** An installation Octokit whose GitHub answers `status` to everything and notes each request's write window. */
function octokitAnswering(status: number, seen: Seen[]): ProbotOctokit {
  const fetch = (url: string, init?: RequestInit) => {
    seen.push({
      method: init?.method ?? "GET",
      url,
      windowLimit: limitsForThisWrite(GITHUB_WRITE_LIMITS)[0]?.limit,
    });
    const body =
      status === 204 ? null : JSON.stringify(status < 300 ? { id: 1, name: "x" } : { message: "boom" });
    return Promise.resolve(new Response(body, { status, headers: { "content-type": "application/json" } }));
  };
  const Octokit = ProbotOctokit.defaults({ retry: { enabled: false }, throttle: { enabled: false } });
  return new Octokit({ auth: "t", request: { fetch } });
}

type Line = { msg: string; effect?: string; key?: string; attempts?: number; retryAt?: number | null };

/** `withMetrics: false`: an App without metrics (they are optional). */
async function setUp(
  effects: { key: string; type: string; [field: string]: unknown }[],
  status: number,
  withMetrics = true,
) {
  const { store, close } = await openTempStore();
  cleanups.push(close);
  await store.commitPlan(KEY, {
    expectedVersion: 0,
    state: { format: 1, state: makeDiamond(), repo: REPO_SETTINGS },
    active: true,
    effects: effects.map((effect) => ({ key: effect.key, effect })),
    timers: [],
    now: NOW - 4_000,
  });
  const seen: Seen[] = [];
  const lines: Line[] = [];
  const metrics = createMetrics({ store, defaultMetrics: false });
  const log = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line) as Line) });
  const deps: EngineDeps = {
    store,
    getOctokit: () => Promise.resolve(octokitAnswering(status, seen)),
    now: () => NOW,
    workerId: "w",
    log,
    getBotLogin: () => Promise.resolve("loom[bot]"),
    ...(withMetrics ? { metrics } : {}),
  };
  return { store, deps, seen, metrics, lines };
}

/** A progress effect (a stage branch's clean-up) and a display one (a label). */
const cleanup = { key: "k:delete-a", type: "deleteBranch", branch: "loom/pr-7/PLAN-demo/a" };
const label = {
  key: "k:label-hold",
  type: "ensureLabel",
  label: { name: "loom:hold", color: "ededed", description: "held" },
};

const version = async (store: Store) => (await store.getPlan(KEY))?.version;

test("a progress effect may fill GitHub's whole write window; a display effect leaves the reserve for progress", async () => {
  const { store, deps, seen } = await setUp([cleanup, label], 204, false);
  // One effect of a plan at a time: the progress lane's first.
  assert.equal(await runEffects(deps, 10), 1);
  assert.equal(await runEffects(deps, 10), 1);
  assert.deepEqual(
    seen.map((request) => [request.method, new URL(request.url).pathname, request.windowLimit]),
    [
      ["DELETE", "/repos/acme/widgets/git/refs/heads%2Floom%2Fpr-7%2FPLAN-demo%2Fa", 80],
      ["POST", "/repos/acme/widgets/labels", 60],
    ],
  );
  assert.equal((await store.getEffect(label.key))?.status, "done", "an App without metrics records none");
});

test("a done effect records the events it returned and its latency; one that returned none leaves the plan's version alone", async () => {
  const { store, deps, metrics } = await setUp([cleanup, label], 204);
  const before = await version(store);
  await runEffects(deps, 10);
  assert.equal(await version(store), before, "no events, no commit");
  const deleted = await store.getEffect(cleanup.key);
  assert.deepEqual([deleted?.status, deleted?.result], ["done", { events: [] }]);
  await runEffects(deps, 10);
  const ensured = await store.getEffect(label.key);
  assert.deepEqual([ensured?.status, ensured?.result], ["done", { events: ["label.ensured"] }]);
  assert.notEqual(await version(store), before, "its event went through the reducer");
  const latency = (await metrics.effectLatency.get()).values.find(
    (value) =>
      value.metricName === "loom_effect_latency_seconds_sum" && value.labels["effect"] === "deleteBranch",
  );
  assert.equal(latency?.value, 4, "decided 4 s before it was done");
});

test("an effect GitHub fails is kept for a later attempt with GitHub's reason, saying so in the log", async () => {
  const { store, deps, lines } = await setUp([cleanup], 502);
  await runEffects(deps, 10);
  const failed = await store.getEffect(cleanup.key);
  assert.equal(failed?.status, "pending");
  assert.match(failed?.lastError ?? "", /deleting branch loom\/pr-7\/PLAN-demo\/a/);
  assert.deepEqual(await store.claimEffects("w", 10, 60_000, NOW), [], "not before its retry time");
  const line = lines.find((entry) => entry.msg === "effect failed; retrying later");
  assert.deepEqual(
    [line?.effect, line?.key, line?.attempts, line?.retryAt],
    ["deleteBranch", cleanup.key, 1, NOW + 5_000],
  );
});

test("an effect GitHub refuses for good is given up (dead), saying so in the log", async () => {
  const { store, deps, lines } = await setUp([cleanup], 403);
  await runEffects(deps, 10);
  const dead = await store.getEffect(cleanup.key);
  assert.equal(dead?.status, "dead");
  assert.match(dead?.lastError ?? "", /deleting branch loom\/pr-7\/PLAN-demo\/a/);
  const line = lines.find((entry) => entry.msg === "effect given up");
  assert.deepEqual([line?.effect, line?.key, line?.retryAt], ["deleteBranch", cleanup.key, null]);
});

test("an effect interrupted by shutdown stays leased with no failed attempt, and the effects claimed after it are not started", async () => {
  const { store, close } = await openTempStore();
  cleanups.push(close);
  // Two plans, one effect each: both are claimed in one go.
  const other = { ...KEY, pr: 8 };
  for (const [key, effect] of [
    [KEY, cleanup],
    [other, label],
  ] as const)
    await store.commitPlan(key, {
      expectedVersion: 0,
      state: { format: 1, state: makeDiamond(), repo: REPO_SETTINGS },
      active: true,
      effects: [{ key: effect.key, effect }],
      timers: [],
      now: NOW - 4_000,
    });
  const stopping = new AbortController();
  const requests: string[] = [];
  // loom stops while the first effect's request is in flight: the request is abandoned.
  const fetch = (url: string) => {
    requests.push(new URL(url).pathname);
    stopping.abort();
    return Promise.reject(new DOMException("This operation was aborted", "AbortError"));
  };
  const Octokit = ProbotOctokit.defaults({ retry: { enabled: false }, throttle: { enabled: false } });
  const lines: Line[] = [];
  const deps: EngineDeps = {
    store,
    getOctokit: () => Promise.resolve(new Octokit({ auth: "t", request: { fetch } })),
    now: () => NOW,
    workerId: "w",
    log: pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line) as Line) }),
    getBotLogin: () => Promise.resolve("loom[bot]"),
    stopping: stopping.signal,
  };
  assert.equal(await runEffects(deps, 10), 2, "both claimed");
  assert.equal(requests.length, 1, "the second effect was not started");
  for (const key of [cleanup.key, label.key]) {
    const effect = await store.getEffect(key);
    assert.deepEqual([effect?.status, effect?.attempts, effect?.lastError], ["pending", 1, null], key);
  }
  // Handed on: once this worker's leases are released, another replica takes both at once.
  await store.releaseLeases("w");
  const taken = await store.claimEffects("w2", 10, 60_000, NOW);
  assert.deepEqual(taken.map((effect) => effect.key).sort(), [cleanup.key, label.key].sort());
  assert.deepEqual(
    lines.map((line) => [line.msg, line.effect, line.key]),
    [
      [
        "effect interrupted by shutdown; it is handed on with this worker's leases",
        "deleteBranch",
        cleanup.key,
      ],
    ],
  );
  assert.ok(lines[0] !== undefined && "err" in lines[0], "the interrupted request's error is logged with it");
});
