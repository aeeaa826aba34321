import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { runDueTimers } from "../../app/engine/run-due-timers.ts";
import { readStoredPlan } from "../../app/engine/stored-plan.ts";
import type { PlanKey, Store } from "../../app/store/store.ts";
import type { PlanState } from "../../src/orchestrator/state.ts";
import { makePlanState, makeSession } from "../status/make-plan-state.ts";
import { mockGitHub, type GitHubMock } from "../support/github-mock.ts";
import { makeEngineDeps, storePlans } from "./engine-fixture.ts";
import { openTempStore } from "./loom-harness.ts";
import { demoKey } from "./stored-plan-fixture.ts";

/*
 * A plan's timers (a backoff's end, a heartbeat deadline) as a user relies on them: each due one
 * becomes a `tick` for its plan, and is then done with. When the tick would judge a live session
 * (its heartbeat deadline has come), the session's run is read from GitHub first, so a session is
 * never judged on silence loom did not check; when GitHub cannot be read, nothing is judged and
 * the timer comes back once its lease ends.
 */

const NOW = Date.UTC(2026, 10, 27, 17, 0, 0);
const TIMEOUT = 300_000;
const LEASE = 60_000;
const REPO = "/repos/acme/widgets";
const key = demoKey;

type Line = { level: number; msg: string; plan?: string };

let gh: GitHubMock | undefined;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  gh?.cleanup();
  gh = undefined;
  for (const undo of cleanups.splice(0).reverse()) await undo();
});

async function setUp(plans: { key: PlanKey; state: PlanState; timers: { key: string; at: number }[] }[]) {
  const { store, close } = await openTempStore();
  cleanups.push(close);
  await storePlans(store, plans, NOW - 600_000);
  gh = mockGitHub();
  const lines: Line[] = [];
  const { deps } = makeEngineDeps(store, NOW, lines);
  return { store, deps, lines, gh };
}

/** Stage `a` running (run 12), last seen `silentMs` ago; nothing else waits. */
const runningFor = (silentMs: number, pr = 7) =>
  makePlanState(
    [
      {
        id: "a",
        status: "executing",
        attempt: 1,
        sessions: [makeSession({ runId: 12, dispatchedAt: NOW - 900_000, lastSeenAt: NOW - silentMs })],
      },
    ],
    { pr: { number: pr, headRef: "feature/demo", headSha: "a".repeat(40), baseRef: "main" } },
  );

/** Nothing running, and nothing a tick at NOW changes (its last update is later). */
const quiet = (pr = 7) =>
  makePlanState([{ id: "a", status: "completed", merged: true }], {
    pr: { number: pr, headRef: "feature/demo", headSha: "a".repeat(40), baseRef: "main" },
    updatedAt: NOW + 1,
  });

const stateOf = async (store: Store, planKey: PlanKey) => {
  const record = await store.getPlan(planKey);
  assert.ok(record);
  return { version: record.version, state: readStoredPlan(record).state };
};

test("each due timer becomes a tick for its plan and is then done with; a timer not yet due waits", async () => {
  const { store, deps, gh } = await setUp([
    { key: key(7), state: quiet(7), timers: [{ key: "retry", at: NOW - 1 }] },
    { key: key(8), state: quiet(8), timers: [{ key: "retry", at: NOW + 1 }] },
  ]);
  assert.equal(await runDueTimers(deps, 10), 1);
  assert.deepEqual(
    (await store.claimDueTimers("other", NOW + 1, 10, LEASE)).map((timer) => timer.planKey.pr),
    [8],
    "plan 7's timer is gone, plan 8's was not due",
  );
  assert.equal((await stateOf(store, key(7))).version, 1, "a tick that changes nothing commits nothing");
  assert.deepEqual(gh.requests, [], "no session to check: nothing read");
  gh.done();
});

test("at most `limit` timers are taken at once; the rest wait for the next round", async () => {
  const { store, deps } = await setUp([
    { key: key(7), state: quiet(7), timers: [{ key: "retry", at: NOW - 2 }] },
    { key: key(8), state: quiet(8), timers: [{ key: "retry", at: NOW - 1 }] },
  ]);
  assert.equal(await runDueTimers(deps, 1), 1);
  assert.deepEqual(
    (await store.claimDueTimers("other", NOW, 10, LEASE)).map((timer) => timer.planKey.pr),
    [8],
  );
});

test("a due tick is applied: a backoff that ended puts the stage back in line", async () => {
  const blocked = makePlanState([{ id: "a", status: "blocked", failures: 1, retryAt: NOW - 1 }], {
    hold: true,
  });
  const { store, deps } = await setUp([
    { key: key(7), state: blocked, timers: [{ key: "wake", at: NOW - 1 }] },
  ]);
  assert.equal(await runDueTimers(deps, 10), 1);
  const { state } = await stateOf(store, key(7));
  assert.deepEqual(
    [state.stages["a"]?.status, state.stages["a"]?.retryAt, state.updatedAt],
    ["queued", null, NOW],
  );
});

test("a backoff coming due reads nothing from GitHub while another stage's session is alive and within its deadline", async () => {
  const state = runningFor(60_000);
  state.order.push("b");
  state.stages["b"] = {
    ...structuredClone(state.stages["a"]!),
    id: "b",
    status: "blocked",
    failures: 1,
    retryAt: NOW - 1,
    sessions: [],
  };
  const { store, deps, gh } = await setUp([{ key: key(7), state, timers: [{ key: "wake", at: NOW - 1 }] }]);
  assert.equal(await runDueTimers(deps, 10), 1);
  const after = (await stateOf(store, key(7))).state;
  assert.deepEqual([after.stages["b"]?.retryAt, after.stages["a"]?.sessions[0]?.status], [null, "running"]);
  assert.deepEqual(gh.requests, [], "no session was due a check");
  gh.done();
});

test("at a running session's heartbeat deadline its run is read first: a run that ended is recorded as ended, not judged hung", async () => {
  const { store, deps, gh } = await setUp([
    { key: key(7), state: runningFor(TIMEOUT), timers: [{ key: "wake", at: NOW }] },
  ]);
  gh.api.get(`${REPO}/actions/runs/12`).reply(200, {
    id: 12,
    status: "completed",
    conclusion: "cancelled",
    html_url: "https://github.com/acme/widgets/actions/runs/12",
    display_title: "loom run",
  });
  gh.api.get(`${REPO}/actions/runs/12/artifacts`).query(true).reply(200, { total_count: 0, artifacts: [] });
  assert.equal(await runDueTimers(deps, 10), 1);
  const [session] = (await stateOf(store, key(7))).state.stages["a"]?.sessions ?? [];
  assert.deepEqual([session?.status, session?.outcome], ["cancelled", "cancelled"]);
  gh.done();
});

test("when GitHub cannot be read at the deadline, nothing is judged, the warning names the plan, and the timer comes back after its lease", async () => {
  const { store, deps, gh, lines } = await setUp([
    { key: key(7), state: runningFor(TIMEOUT + 1_000), timers: [{ key: "wake", at: NOW - 1_000 }] },
  ]);
  gh.api.get(`${REPO}/actions/runs/12`).reply(502, { message: "Bad Gateway" });
  assert.equal(await runDueTimers(deps, 10), 1);
  const { version, state } = await stateOf(store, key(7));
  assert.deepEqual([version, state.stages["a"]?.sessions[0]?.status], [1, "running"], "not judged hung");
  assert.deepEqual(
    lines.filter((line) => line.level >= 40).map((line) => [line.msg, line.plan]),
    [
      [
        "could not read the plan's sessions at their deadline; judged once GitHub answers",
        "acme/widgets#7:doc/plans/PLAN-demo.md",
      ],
    ],
  );
  assert.deepEqual(await store.claimDueTimers("other", NOW + LEASE - 1, 10, LEASE), [], "leased");
  assert.deepEqual(
    (await store.claimDueTimers("other", NOW + LEASE, 10, LEASE)).map((timer) => timer.key),
    ["wake"],
  );
  gh.done();
});
