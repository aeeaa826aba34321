import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { onCheckSuite } from "../../app/engine/on-check-suite.ts";
import { readStoredPlan } from "../../app/engine/stored-plan.ts";
import { formatPlanKey } from "../../app/store/store.ts";
import type { PlanKey, Store } from "../../app/store/store.ts";
import { getKeyPrefix } from "../../src/orchestrator/step-context.ts";
import type { PlanState } from "../../src/orchestrator/state.ts";
import { makePlanState } from "../status/make-plan-state.ts";
import { mockGitHub, type GitHubMock } from "../support/github-mock.ts";
import { checkSuitePayload } from "../support/webhook-payloads.ts";
import { makeEngineDeps, storePlans } from "./engine-fixture.ts";
import { openTempStore } from "./loom-harness.ts";

/*
 * "Re-run all checks" / "Re-run failed checks" on a pull request (`check_suite.rerequested`): every
 * plan shown on that head re-runs its failed stages, each with its own reply, when the person may
 * steer loom; otherwise one reply says why nothing was done. A suite of an older head changes
 * nothing; a fork's suite names no pull request and is found by its head.
 */

const NOW = Date.UTC(2026, 10, 27, 19, 0, 0);
const REPO = "/repos/acme/widgets";
const HEAD = "a".repeat(40);
const OLD = "9".repeat(40);
const key = (pr: number, planPath = "doc/plans/PLAN-demo.md", repo = "widgets"): PlanKey => ({
  installationId: 4242,
  owner: "acme",
  repo,
  pr,
  planPath,
});

let gh: GitHubMock | undefined;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  gh?.cleanup();
  gh = undefined;
  for (const undo of cleanups.splice(0).reverse()) await undo();
});

/** A plan of pull request `pr` at `headSha`: stage `a` failed its checks when `failed`, else completed. */
const planAt = (pr: number, headSha: string, failed: boolean, id = "PLAN-demo"): PlanState => {
  const state = makePlanState([{ id: "a", status: failed ? "completed-with-failures" : "completed" }], {
    pr: { number: pr, headRef: "feature/demo", headSha, baseRef: "main" },
    hold: true,
  });
  return { ...state, plan: { ...state.plan, id } };
};

async function setUp(plans: { key: PlanKey; state: PlanState }[]) {
  const { store, close } = await openTempStore();
  cleanups.push(close);
  await storePlans(store, plans, NOW - 60_000);
  gh = mockGitHub();
  const { deps } = makeEngineDeps(store, NOW);
  return { store, deps, gh };
}

function permission(g: GitHubMock, login: string, role: string) {
  g.api.get(`${REPO}/collaborators/${login}/permission`).reply(200, { permission: role, role_name: role });
}

async function planOf(store: Store, planKey: PlanKey) {
  const record = await store.getPlan(planKey);
  assert.ok(record);
  return { version: record.version, state: readStoredPlan(record).state };
}

/** The reply the reducer enqueued for the suite's re-run on `planKey`, if any. */
async function rerunReply(store: Store, planKey: PlanKey, suiteId: number) {
  const { state } = await planOf(store, planKey);
  const effectKey = `${getKeyPrefix(state)}:@reply:check-suite-rerequest-${suiteId}:retry:`;
  return (await store.getEffect(`${formatPlanKey(planKey)}|${effectKey}`))?.effect as
    { reaction: string; body: string | null; source: unknown } | undefined;
}

/** The App's own refusal reply to `login` on `planKey`, if any. */
async function refusal(store: Store, planKey: PlanKey, suiteId: number, login: string) {
  const record = await store.getEffect(`${formatPlanKey(planKey)}|reply:check-suite:${suiteId}:${login}`);
  return record?.effect as { reaction: string; body: string; source: unknown } | undefined;
}

const alice = { login: "alice" };

test("a writer's re-run re-runs the failed stages of every plan on that head, each plan replying for itself", async () => {
  const failing = key(7);
  const green = key(7, "doc/plans/PLAN-other.md");
  const { store, deps, gh } = await setUp([
    { key: failing, state: planAt(7, HEAD, true) },
    { key: green, state: planAt(7, HEAD, false, "PLAN-other") },
  ]);
  permission(gh, "alice", "write");
  await onCheckSuite(deps, checkSuitePayload({ id: 66, headSha: HEAD, pullNumbers: [7], sender: alice }));
  assert.equal(
    (await planOf(store, failing)).state.stages["a"]?.status,
    "queued",
    "the failed stage re-runs",
  );
  assert.deepEqual(await rerunReply(store, failing, 66), {
    type: "reply",
    key: `${getKeyPrefix((await planOf(store, failing)).state)}:@reply:check-suite-rerequest-66:retry:`,
    source: { kind: "check-suite-rerequest", checkSuiteId: 66 },
    reaction: "+1",
    body: null,
  });
  const nothing = await rerunReply(store, green, 66);
  assert.deepEqual(
    [nothing?.reaction, nothing?.body],
    ["-1", "Nothing of PLAN-other to re-run: no stage has failed."],
  );
  const retried = (await planOf(store, failing)).state.stages["a"]?.notes.at(-1)?.text ?? "";
  assert.match(retried, /alice/, "the re-run is alice's");
  gh.done();
});

test("a reader's re-run changes nothing and gets one reply saying why, on the first plan of the lowest pull request", async () => {
  const { store, deps, gh } = await setUp([
    { key: key(8), state: planAt(8, HEAD, true) },
    { key: key(7), state: planAt(7, HEAD, true) },
    { key: key(7, "doc/plans/PLAN-other.md"), state: planAt(7, HEAD, true, "PLAN-other") },
  ]);
  permission(gh, "bob", "read");
  await onCheckSuite(
    deps,
    checkSuitePayload({ id: 67, headSha: HEAD, pullNumbers: [8, 7], sender: { login: "bob" } }),
  );
  assert.deepEqual(await refusal(store, key(7), 67, "bob"), {
    type: "reply",
    key: "reply:check-suite:67:bob",
    source: { kind: "check-suite-rerequest", checkSuiteId: 67 },
    reaction: "-1",
    body: "loom did nothing: @bob has read access; loom needs write or above.",
  });
  assert.equal(await refusal(store, key(8), 67, "bob"), undefined);
  assert.equal(await refusal(store, key(7, "doc/plans/PLAN-other.md"), 67, "bob"), undefined);
  for (const planKey of [key(7), key(8)]) {
    assert.equal((await planOf(store, planKey)).state.stages["a"]?.status, "completed-with-failures");
    assert.equal(await rerunReply(store, planKey, 67), undefined);
    const { state } = await planOf(store, planKey);
    assert.equal(state.updatedAt, planAt(7, HEAD, true).updatedAt, "no event reached the plan");
  }
  gh.done();
});

test("a suite of a head no plan is at any more changes nothing and reads nothing", async () => {
  const { store, deps, gh } = await setUp([{ key: key(7), state: planAt(7, HEAD, true) }]);
  await onCheckSuite(deps, checkSuitePayload({ id: 68, headSha: OLD, pullNumbers: [7], sender: alice }));
  assert.equal((await planOf(store, key(7))).version, 1);
  assert.deepEqual(gh.requests, []);
  gh.done();
});

test("a fork's suite, which names no pull request, re-runs the plans of this repository at its head only", async () => {
  const { store, deps, gh } = await setUp([
    { key: key(9), state: planAt(9, HEAD, true) },
    { key: key(10), state: planAt(10, OLD, true) },
    { key: key(11, "doc/plans/PLAN-demo.md", "gadgets"), state: planAt(11, HEAD, true) },
  ]);
  permission(gh, "alice", "write");
  await onCheckSuite(deps, checkSuitePayload({ id: 69, headSha: HEAD, pullNumbers: [], sender: alice }));
  assert.equal((await planOf(store, key(9))).state.stages["a"]?.status, "queued");
  assert.equal((await planOf(store, key(10))).version, 1, "another head");
  assert.equal(
    (await planOf(store, key(11, "doc/plans/PLAN-demo.md", "gadgets"))).version,
    1,
    "another repository",
  );
  gh.done();
});

test("a suite that names its pull request re-runs that pull request's plans only, not another pull request's at the same commit", async () => {
  // Two pull requests of this repository whose heads are one commit (two branches at one SHA).
  const { store, deps, gh } = await setUp([
    { key: key(7), state: planAt(7, HEAD, true) },
    { key: key(12), state: planAt(12, HEAD, true) },
  ]);
  permission(gh, "alice", "write");
  await onCheckSuite(deps, checkSuitePayload({ id: 70, headSha: HEAD, pullNumbers: [7], sender: alice }));
  assert.equal((await planOf(store, key(7))).state.stages["a"]?.status, "queued");
  assert.equal((await planOf(store, key(12))).version, 1, "the pull request GitHub did not name");
  gh.done();
});

test("a suite that is not a re-run, or a payload that is no check suite, changes nothing", async () => {
  const { store, deps, gh } = await setUp([{ key: key(7), state: planAt(7, HEAD, true) }]);
  const suite = checkSuitePayload({ id: 70, headSha: HEAD, pullNumbers: [7], sender: alice });
  await onCheckSuite(deps, { ...suite, action: "completed" });
  await onCheckSuite(deps, { action: "rerequested" });
  assert.equal((await planOf(store, key(7))).version, 1);
  assert.deepEqual(gh.requests, []);
  gh.done();
});
