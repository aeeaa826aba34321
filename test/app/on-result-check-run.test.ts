import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { onResultCheckRun } from "../../app/engine/on-result-check-run.ts";
import { readStoredPlan } from "../../app/engine/stored-plan.ts";
import type { Store } from "../../app/store/store.ts";
import { formatResultCheckRun, type CarriedOutcome } from "../../src/artifacts/result-check-run.ts";
import type { StageResult } from "../../src/artifacts/stage-result.ts";
import { makeStageKey } from "../../src/orchestrator/step-context.ts";
import type { PlanState, Session } from "../../src/orchestrator/state.ts";
import { makePlanState, makeSession } from "../status/make-plan-state.ts";
import { mockGitHub, type GitHubMock } from "../support/github-mock.ts";
import { resultCheckRunPayload } from "../support/webhook-payloads.ts";
import { makeEngineDeps, storePlans } from "./engine-fixture.ts";
import { openTempStore } from "./loom-harness.ts";
import { checkedSha, passingResult } from "./stage-results.ts";
import { DEMO_KEY } from "./stored-plan-fixture.ts";

/*
 * A `loom result` check run, called directly on a real store (GitHub faked at the network, and
 * never asked): believed, it ends the stage's live session as its run's publish job reported it,
 * at once, with no request; anything else (text loom cannot read, another commit than the one the
 * run pushed, a run loom did not record, a session that ended, another plan's or dispatch's
 * result) changes nothing and, where it looks like a forgery, says so in the log.
 */

const NOW = Date.UTC(2026, 10, 27, 20, 0, 0);
const KEY = DEMO_KEY;
const RUN = 12;

type Line = { msg: string; checkRun?: number; stageId?: string; attempt?: number };

let gh: GitHubMock | undefined;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  gh?.cleanup();
  gh = undefined;
  for (const undo of cleanups.splice(0).reverse()) await undo();
});

/** Plan PLAN-demo: stage a with `sessions` (a live attempt 1 on run 12 by default), b after it. */
async function setUp(sessions: Session[] = [makeSession({ runId: RUN })]) {
  const { store, close } = await openTempStore();
  cleanups.push(close);
  const state = makePlanState(
    [
      { id: "a", status: "executing", attempt: sessions.length, sessions },
      { id: "b", dependencies: ["a"] },
    ],
    { updatedAt: NOW - 60_000 },
  );
  await storePlans(store, [{ key: KEY, state }], NOW - 60_000);
  gh = mockGitHub();
  const lines: Line[] = [];
  const { deps } = makeEngineDeps(store, NOW, lines);
  return { store, deps, state, lines, gh };
}

/** What stage a's publish job reports for `attempt` on `runId`, with the dispatch's key. */
function outcome(
  state: PlanState,
  attempt = 1,
  runId = RUN,
  changes: Partial<StageResult> = {},
): CarriedOutcome {
  const sha = checkedSha("a", attempt);
  return {
    version: 1,
    run_id: runId,
    result: {
      ...passingResult("a", attempt),
      plan_id: state.plan.id,
      key: makeStageKey(state, "a", attempt, "dispatch"),
      cost_usd: 0.42,
      ...changes,
    },
    publish: {
      version: 1,
      ok: true,
      plan_id: state.plan.id,
      stage_id: "a",
      branch: "loom/PLAN-demo/a",
      pushed_sha: sha,
      commits_checked: 1,
      refusals: [],
    },
  };
}

function payload(carried: CarriedOutcome, headSha = carried.publish.pushed_sha ?? "", text?: string) {
  return resultCheckRunPayload({ id: 77, headSha, text: text ?? formatResultCheckRun(carried)?.text ?? "" });
}

async function read(store: Store) {
  const record = await store.getPlan(KEY);
  assert.ok(record);
  return { version: record.version, state: readStoredPlan(record).state };
}

test("a loom result check run ends the stage's live session as its publish job reported it, at once and without a request", async () => {
  const { store, deps, state, gh } = await setUp();
  await onResultCheckRun(deps, payload(outcome(state)));
  const after = await read(store);
  assert.equal(after.version, 2);
  const session = after.state.stages["a"]?.sessions[0];
  assert.equal(session?.status, "completed");
  assert.equal(session?.outcome, "completed");
  assert.equal(session?.finishedAt, NOW);
  assert.equal(session?.report?.usage.costUsd, 0.42, "the carried result's numbers");
  assert.equal(after.state.stages["a"]?.checkedSha, checkedSha("a"), "the commit the publish job pushed");
  assert.deepEqual(gh.requests, []);
  gh.done();
});

test("a result for the session's attempt ends that attempt, past an earlier attempt that already ended", async () => {
  const ended = makeSession({ runId: 11, status: "crashed", outcome: "crashed", finishedAt: NOW - 120_000 });
  const { store, deps, state, gh } = await setUp([ended, makeSession({ attempt: 2, runId: 13 })]);
  await onResultCheckRun(deps, payload(outcome(state, 2, 13)));
  const [first, second] = (await read(store)).state.stages["a"]?.sessions ?? [];
  assert.deepEqual([first?.status, second?.status], ["crashed", "completed"]);
  gh.done();
});

test("a result whose run gave no dispatch key is believed for its plan's live session", async () => {
  const { store, deps, state, gh } = await setUp();
  const { key: _, ...result } = outcome(state).result;
  await onResultCheckRun(deps, payload({ ...outcome(state), result }));
  assert.equal((await read(store)).state.stages["a"]?.sessions[0]?.status, "completed");
  gh.done();
});

const ignored: [string, (state: PlanState) => Record<string, unknown>, string | null][] = [
  [
    "text loom cannot read",
    (state) => payload(outcome(state), undefined, '{"version":1,"run_id":12}'),
    "a loom result check run loom cannot read: the run's artifacts decide",
  ],
  [
    "a check run on another commit than the one its run pushed",
    (state) => payload(outcome(state), checkedSha("b")),
    "a loom result check run not on the commit its run pushed",
  ],
  [
    "another plan's result, without a dispatch key",
    (state) => {
      const { key: _, ...result } = outcome(state).result;
      return payload({ ...outcome(state), result: { ...result, plan_id: "PLAN-other" } });
    },
    "a loom result check run for another plan or dispatch: ignored",
  ],
  [
    "another plan's result, with this dispatch's key",
    (state) => payload(outcome(state, 1, RUN, { plan_id: "PLAN-other" })),
    "a loom result check run for another plan or dispatch: ignored",
  ],
  [
    "another dispatch's key",
    (state) => payload(outcome(state, 1, RUN, { key: makeStageKey(state, "a", 2, "dispatch") })),
    "a loom result check run for another plan or dispatch: ignored",
  ],
  ["a run loom did not record", (state) => payload(outcome(state, 1, 999)), null],
  ["a check run of another app", (state) => ({ ...payload(outcome(state)), check_run: { name: "x" } }), null],
];

for (const [what, make, warning] of ignored) {
  test(`a loom result check run is ignored for ${what}, with ${warning === null ? "no warning" : "a warning"}`, async () => {
    const { store, deps, state, lines, gh } = await setUp();
    await onResultCheckRun(deps, make(state));
    const after = await read(store);
    assert.equal(after.version, 1, "nothing committed");
    assert.equal(after.state.stages["a"]?.sessions[0]?.status, "running");
    const warnings = lines.map((line) => line.msg);
    assert.deepEqual(warnings, warning === null ? [] : [warning]);
    if (warning !== null) assert.equal(lines[0]?.checkRun, 77, "the check run named");
    if (warning?.includes("another plan")) assert.deepEqual([lines[0]?.stageId, lines[0]?.attempt], ["a", 1]);
    assert.deepEqual(gh.requests, []);
    gh.done();
  });
}

test("a result for a session that already ended changes nothing", async () => {
  const ended = makeSession({ runId: RUN, status: "crashed", outcome: "crashed", finishedAt: NOW - 120_000 });
  const { store, deps, state, gh } = await setUp([ended]);
  await onResultCheckRun(deps, payload(outcome(state)));
  const after = await read(store);
  assert.equal(after.version, 1);
  assert.equal(after.state.stages["a"]?.sessions[0]?.status, "crashed");
  gh.done();
});
