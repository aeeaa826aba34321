import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import pino from "pino";
import type { EngineDeps } from "../../app/engine/engine-deps.ts";
import { findRecordedRunStage, findRunStage } from "../../app/engine/find-run-stage.ts";
import type { RunIdentity } from "../../app/github/judge-run-identity.ts";
import type { PlanKey } from "../../app/store/store.ts";
import { makeStageKey } from "../../src/orchestrator/step-context.ts";
import type { PlanState, Session } from "../../src/orchestrator/state.ts";
import { makePlanState, makeSession } from "../status/make-plan-state.ts";
import { openTempStore } from "./loom-harness.ts";
import { REPO_SETTINGS, demoKey } from "./stored-plan-fixture.ts";

/*
 * Which plan and stage a workflow run speaks for, as a user relies on it: the session that recorded
 * the run's id; else, for a live session whose dispatch returned no id yet, only a run that is
 * provably loom's own dispatch with that session's key. A run anyone else started, a run of a
 * session that already has its run, or a run of another repository belongs to nothing, so it can
 * neither finish nor start a stage.
 */

const NOW = Date.UTC(2026, 10, 27, 18, 0, 0);
const BOT = "loom[bot]";
const REPO = { owner: "acme", repo: "widgets" };
const key = demoKey;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const undo of cleanups.splice(0).reverse()) await undo();
});

/** Pull request `pr`'s plan: stage `a` with `a` sessions, stage `b` with `b` sessions. */
const plan = (pr: number, a: Session[], b: Session[] = []): PlanState =>
  makePlanState(
    [
      { id: "a", status: "executing", attempt: a.length, sessions: a },
      { id: "b", status: b.length > 0 ? "executing" : "waiting-for-deps", attempt: b.length, sessions: b },
    ],
    { pr: { number: pr, headRef: "feature/demo", headSha: "a".repeat(40), baseRef: "main" } },
  );

async function setUp(
  plans: { key: PlanKey; state: PlanState; active?: boolean }[],
  botLogin: string | null = BOT,
) {
  const { store, close } = await openTempStore();
  cleanups.push(close);
  for (const entry of plans)
    await store.commitPlan(entry.key, {
      expectedVersion: 0,
      state: { format: 1, state: entry.state, repo: REPO_SETTINGS },
      active: entry.active ?? true,
      effects: [],
      timers: [],
      now: NOW,
    });
  const deps = {
    store,
    now: () => NOW,
    workerId: "w",
    log: pino({ level: "silent" }),
    getBotLogin: () => Promise.resolve(botLogin),
    getOctokit: () => Promise.reject(new Error("no GitHub here")),
  } as unknown as EngineDeps;
  return deps;
}

/** A dispatch still waiting for its run's id, sent a minute ago. */
const waiting = (attempt = 1): Session =>
  makeSession({ attempt, status: "spawning", runId: null, dispatchedAt: NOW - 60_000, startedAt: null });

/** Run `id` as loom's own dispatch of `dispatchKey` would look, with `overrides`. */
const loomRun = (id: number, dispatchKey: string, overrides: Partial<RunIdentity> = {}): RunIdentity => ({
  id,
  name: "loom stage",
  display_title: `loom ${dispatchKey}`,
  event: "workflow_dispatch",
  path: ".github/workflows/loom.yml",
  head_branch: "main",
  created_at: new Date(NOW - 30_000).toISOString(),
  actor: { login: BOT },
  triggering_actor: { login: BOT },
  ...overrides,
});

const dispatchKey = (state: PlanState, stageId: string, attempt = 1) =>
  makeStageKey(state, stageId, attempt, "dispatch");

const found = (result: Awaited<ReturnType<typeof findRunStage>>) =>
  result === null ? null : { pr: result.plan.key.pr, stageId: result.stageId, attempt: result.attempt };

test("a run is the stage and attempt whose session recorded its id, in whichever plan of the repository", async () => {
  const deps = await setUp([
    { key: key(7), state: plan(7, [makeSession({ attempt: 1, status: "crashed", runId: 11 })]) },
    {
      key: key(8),
      state: plan(
        8,
        [makeSession({ runId: 21 })],
        [makeSession({ attempt: 1, status: "crashed", runId: 31 }), makeSession({ attempt: 2, runId: 32 })],
      ),
    },
  ]);
  assert.deepEqual(found(await findRunStage(deps, REPO, { id: 32, display_title: "" })), {
    pr: 8,
    stageId: "b",
    attempt: 2,
  });
  assert.deepEqual(found(await findRunStage(deps, REPO, { id: 11, display_title: "" })), {
    pr: 7,
    stageId: "a",
    attempt: 1,
  });
  assert.equal(await findRunStage(deps, REPO, { id: 99, display_title: "" }), null, "no plan knows run 99");
});

test("a run id recorded in another repository, or in a plan that ended, is not this repository's run", async () => {
  const deps = await setUp([
    { key: key(7, "gadgets"), state: plan(7, [makeSession({ runId: 41 })]) },
    { key: key(8), state: plan(8, [makeSession({ runId: 42 })]), active: false },
  ]);
  assert.equal(await findRunStage(deps, REPO, { id: 41, display_title: "" }), null);
  assert.equal(await findRunStage(deps, REPO, { id: 42, display_title: "" }), null);
  assert.equal(await findRecordedRunStage(deps, REPO, 41), null);
  assert.deepEqual(
    found(await findRunStage(deps, { owner: "ACME", repo: "Gadgets" }, { id: 41, display_title: "" })),
    {
      pr: 7,
      stageId: "a",
      attempt: 1,
    },
    "owner and repository names compare without case",
  );
});

test("loom's own dispatch of a session still waiting for its run id is that session's run", async () => {
  const state = plan(
    7,
    [makeSession({ attempt: 1, status: "crashed", runId: 11 }), waiting(2)],
    [waiting(1)],
  );
  const deps = await setUp([{ key: key(7), state }]);
  assert.deepEqual(found(await findRunStage(deps, REPO, loomRun(51, dispatchKey(state, "a", 2)))), {
    pr: 7,
    stageId: "a",
    attempt: 2,
  });
  assert.deepEqual(found(await findRunStage(deps, REPO, loomRun(52, dispatchKey(state, "b", 1)))), {
    pr: 7,
    stageId: "b",
    attempt: 1,
  });
});

test("a run titled with a session's key but started by someone else, or of another workflow, belongs to nothing", async () => {
  const state = plan(7, [waiting()]);
  const deps = await setUp([{ key: key(7), state }]);
  const title = dispatchKey(state, "a");
  for (const overrides of [
    { actor: { login: "mallory" }, triggering_actor: { login: "mallory" } },
    { path: ".github/workflows/other.yml" },
    { event: "push" },
    { created_at: new Date(NOW - 3_600_000).toISOString() },
  ])
    assert.equal(
      await findRunStage(deps, REPO, loomRun(61, title, overrides)),
      null,
      JSON.stringify(overrides),
    );
});

test("without loom's bot login no run is matched by its title", async () => {
  const state = plan(7, [waiting()]);
  const deps = await setUp([{ key: key(7), state }], null);
  assert.equal(await findRunStage(deps, REPO, loomRun(71, dispatchKey(state, "a"), { actor: null })), null);
});

test("a session that has its run already, or has ended, takes no run by title", async () => {
  const state = plan(
    7,
    [makeSession({ attempt: 1, runId: 81 })],
    [makeSession({ attempt: 1, status: "cancelled", runId: null, dispatchedAt: NOW - 60_000 })],
  );
  const deps = await setUp([{ key: key(7), state }]);
  assert.equal(await findRunStage(deps, REPO, loomRun(82, dispatchKey(state, "a"))), null);
  assert.equal(await findRunStage(deps, REPO, loomRun(83, dispatchKey(state, "b"))), null);
});

test("findRecordedRunStage knows only recorded runs, never one matched by its title", async () => {
  const state = plan(7, [makeSession({ attempt: 1, runId: 91 })], [waiting()]);
  const deps = await setUp([{ key: key(7), state }]);
  assert.deepEqual(found(await findRecordedRunStage(deps, REPO, 91)), { pr: 7, stageId: "a", attempt: 1 });
  assert.equal(await findRecordedRunStage(deps, REPO, 92), null);
  assert.notEqual(await findRunStage(deps, REPO, loomRun(92, dispatchKey(state, "b"))), null, "by title");
});
