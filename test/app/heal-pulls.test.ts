import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import type { EngineDeps } from "../../app/engine/engine-deps.ts";
import { healPulls } from "../../app/engine/heal-pulls.ts";
import { onPullRequest } from "../../app/engine/on-pull-request.ts";
import { readStoredPlan } from "../../app/engine/stored-plan.ts";
import { createApiCalls } from "../../app/github/effect-context.ts";
import { createGitHubCache } from "../../app/github/github-cache.ts";
import type { PlanKey, Store } from "../../app/store/store.ts";
import { HEAD_SHA, makePlanState, makeSession } from "../status/make-plan-state.ts";
import { mockGitHub, type GitHubMock } from "../support/github-mock.ts";
import { pullRequestPayload } from "../support/webhook-payloads.ts";
import { createFakeGitHub, nextSha } from "./fake-github.ts";
import { makeEngineDeps, storePlans } from "./engine-fixture.ts";
import { DIAMOND_PLAN, openTempStore, PLAN_PATH } from "./loom-harness.ts";

/*
 * Pull request webhooks that never came, healed by the reconcile: each pull request with an active
 * plan is read again, once however many plans it holds (a conditional read, free when unchanged).
 * Closed → its plans close (merged or not, as GitHub says); at a head loom has not seen → its plans
 * are loaded again as on a push; otherwise nothing changes. One pull request GitHub cannot be read
 * for does not keep the others from being healed.
 */

const NOW = Date.UTC(2026, 10, 27, 17, 30, 0);
const REPO = "/repos/acme/widgets";
const PUSHED = "d".repeat(40);
const key = (pr: number, planPath = "doc/plans/PLAN-demo.md", owner = "acme"): PlanKey => ({
  installationId: 4242,
  owner,
  repo: "widgets",
  pr,
  planPath,
});

type Line = { level: number; msg: string; plan?: string; err?: { message: string } };

let gh: GitHubMock | undefined;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  gh?.cleanup();
  gh = undefined;
  for (const undo of cleanups.splice(0).reverse()) await undo();
});

/** A plan of pull request `pr` at HEAD_SHA whose stage `a` is running. */
const running = (pr: number) =>
  makePlanState([{ id: "a", status: "executing", attempt: 1, sessions: [makeSession({ runId: 12 })] }], {
    pr: { number: pr, headRef: "feature/demo", headSha: HEAD_SHA, baseRef: "main" },
  });

async function setUp(
  plans: { key: PlanKey; headSha?: string; loomHeads?: string[] }[],
  options: { cached?: boolean } = {},
) {
  const { store, close } = await openTempStore();
  cleanups.push(close);
  const states = plans.map((plan) => {
    const state = running(plan.key.pr);
    if (plan.headSha !== undefined) state.pr.headSha = plan.headSha;
    if (plan.loomHeads !== undefined) state.loomHeads = plan.loomHeads;
    return { key: plan.key, state };
  });
  await storePlans(store, states, NOW - 60_000);
  gh = mockGitHub();
  const lines: Line[] = [];
  const calls = createApiCalls();
  const made = makeEngineDeps(store, NOW, lines);
  const deps: EngineDeps = {
    ...made.deps,
    calls,
    ...(options.cached === true ? { cache: createGitHubCache() } : {}),
  };
  return { store, deps, lines, calls, gh, api: gh.api, installations: made.installations };
}

/** GET /pulls/{pr} as GitHub answers it. */
function pull(
  api: GitHubMock["api"],
  pr: number,
  fields: { state?: string; merged?: boolean; sha?: string } = {},
) {
  return api.get(`${REPO}/pulls/${pr}`).reply(
    200,
    {
      number: pr,
      state: fields.state ?? "open",
      merged: fields.merged ?? false,
      user: { login: "alice" },
      labels: [],
      head: { ref: "feature/demo", sha: fields.sha ?? HEAD_SHA, repo: { full_name: "acme/widgets" } },
      base: { ref: "main" },
    },
    { etag: `"pull-${pr}"` },
  );
}

async function planOf(store: Store, planKey: PlanKey) {
  const record = await store.getPlan(planKey);
  assert.ok(record);
  const { state } = readStoredPlan(record);
  return { version: record.version, active: record.active, state, notes: state.stages["a"]?.notes ?? [] };
}

const active = (store: Store) => store.listActivePlans();

test("a pull request still at the head its plans know is read once for all of them, and nothing changes", async () => {
  const { store, deps, calls, gh, api } = await setUp([
    { key: key(7) },
    { key: key(7, "doc/plans/PLAN-other.md") },
    { key: key(8) },
  ]);
  pull(api, 7);
  pull(api, 8);
  await healPulls(deps, await active(store));
  assert.deepEqual(
    gh.requests.map((request) => request.path),
    [`${REPO}/pulls/7`, `${REPO}/pulls/8`],
  );
  assert.equal(calls.by["reconcile"], 2, "counted as the reconcile's reads");
  for (const planKey of [key(7), key(7, "doc/plans/PLAN-other.md"), key(8)])
    assert.deepEqual(
      [(await planOf(store, planKey)).version, (await planOf(store, planKey)).active],
      [1, true],
    );
  gh.done();
});

test("one pull request is one read even when its plans were stored under another spelling of the owner", async () => {
  const { store, deps, gh, api } = await setUp([
    { key: key(7) },
    { key: key(7, "doc/plans/PLAN-other.md", "Acme") },
  ]);
  pull(api, 7);
  await healPulls(deps, await active(store));
  assert.equal(gh.requests.length, 1);
  gh.done();
});

test("an unchanged pull request costs a free 304 on the next reconcile when loom keeps ETags, each its own", async () => {
  const { store, deps, calls, gh, api } = await setUp([{ key: key(7) }, { key: key(8) }], { cached: true });
  pull(api, 7);
  pull(api, 8);
  for (const pr of [7, 8])
    api.get(`${REPO}/pulls/${pr}`).matchHeader("if-none-match", `"pull-${pr}"`).reply(304, "");
  await healPulls(deps, await active(store));
  await healPulls(deps, await active(store));
  assert.deepEqual([calls.total, calls.notModified], [4, 2]);
  assert.equal((await planOf(store, key(7))).version, 1);
  gh.done();
});

test("a pull request merged while its webhook was lost closes every plan on it, as merged; others stay", async () => {
  const { store, deps, gh, api } = await setUp([
    { key: key(7) },
    { key: key(7, "doc/plans/PLAN-other.md") },
    { key: key(8) },
  ]);
  pull(api, 7, { state: "closed", merged: true });
  pull(api, 8);
  await healPulls(deps, await active(store));
  for (const planKey of [key(7), key(7, "doc/plans/PLAN-other.md")]) {
    const plan = await planOf(store, planKey);
    assert.deepEqual([plan.active, plan.state.closed], [false, true]);
    assert.equal(plan.notes.at(-1)?.text, "pull request merged: session cancelled");
  }
  assert.equal((await planOf(store, key(8))).active, true);
  gh.done();
});

test("a pull request closed unmerged closes its plans as closed", async () => {
  const { store, deps, gh, api } = await setUp([{ key: key(7) }]);
  pull(api, 7, { state: "closed" });
  await healPulls(deps, await active(store));
  const plan = await planOf(store, key(7));
  assert.deepEqual([plan.active, plan.notes.at(-1)?.text], [false, "pull request closed: session cancelled"]);
  gh.done();
});

test("a push loom never heard of loads the pull request's plans again at the new head", async () => {
  const { store, deps, gh, api, installations } = await setUp([{ key: key(7) }]);
  pull(api, 7, { sha: PUSHED });
  // At the new head the plan file is gone from the pull request: the plan ends.
  api.get(`${REPO}/pulls/7/files`).query({ per_page: "100" }).reply(200, []);
  await healPulls(deps, await active(store));
  const plan = await planOf(store, key(7));
  assert.deepEqual([plan.active, plan.notes.at(-1)?.text], [false, "pull request closed: session cancelled"]);
  assert.deepEqual(
    installations,
    [4242, 4242],
    "the pull request's and the plans' reads, on the plan's installation",
  );
  gh.done();
});

test("a push of loom's own commit it missed the webhook of moves the plans to it, reading nothing but the file list", async () => {
  const { store, deps, gh, api } = await setUp([{ key: key(7), loomHeads: [PUSHED] }]);
  pull(api, 7, { sha: PUSHED });
  // The plan file is still at the blob its plan runs: loom's commit (a stage's merge) left it alone.
  api
    .get(`${REPO}/pulls/7/files`)
    .query(true)
    .reply(200, [{ filename: "doc/plans/PLAN-demo.md", sha: "b".repeat(40), status: "modified" }]);
  await healPulls(deps, await active(store));
  const plan = await planOf(store, key(7));
  assert.deepEqual([plan.active, plan.state.pr.headSha], [true, PUSHED]);
  gh.done();
});

test("a head only one of the pull request's plans has seen loads them again", async () => {
  const { store, deps, gh, api } = await setUp([
    { key: key(7), headSha: PUSHED },
    { key: key(7, "doc/plans/PLAN-other.md") },
  ]);
  pull(api, 7, { sha: PUSHED });
  api.get(`${REPO}/pulls/7/files`).query(true).reply(200, []);
  await healPulls(deps, await active(store));
  assert.equal((await planOf(store, key(7, "doc/plans/PLAN-other.md"))).active, false);
  gh.done();
});

test("a pull request GitHub cannot be read for is logged with its plan, and the next one is healed all the same", async () => {
  const { store, deps, gh, api, lines } = await setUp([{ key: key(7) }, { key: key(8) }]);
  api.get(`${REPO}/pulls/7`).reply(502, { message: "Bad Gateway" });
  pull(api, 8, { state: "closed" });
  await healPulls(deps, await active(store));
  assert.equal((await planOf(store, key(7))).active, true);
  assert.equal((await planOf(store, key(8))).active, false);
  assert.deepEqual(
    lines.filter((line) => line.level >= 50).map((line) => [line.msg, line.plan]),
    [["re-reading the pull request failed", "acme/widgets#7:doc/plans/PLAN-demo.md"]],
  );
  gh.done();
});

test("a person's push that changed the plan file while its webhook was lost reloads the plan as the same repository's, not a fork's", async () => {
  const { store, close } = await openTempStore();
  cleanups.push(close);
  gh = mockGitHub();
  const fake = createFakeGitHub(gh);
  const head = nextSha();
  fake.refs.set("main", nextSha());
  fake.refs.set("feature/plan", head);
  fake.files.set(`${head}:${PLAN_PATH}`, DIAMOND_PLAN);
  fake.pullFiles.set(7, [PLAN_PATH]);
  fake.roles.set("alice", "write");
  const { deps } = makeEngineDeps(store, NOW);
  await onPullRequest(deps, pullRequestPayload("opened", { number: 7, headSha: head }));
  // alice renames stage d on her branch; its webhook never comes.
  const pushed = nextSha();
  fake.refs.set("feature/plan", pushed);
  fake.files.set(`${pushed}:${PLAN_PATH}`, DIAMOND_PLAN.replace("name: Join", "name: Join them"));
  await healPulls(deps, await active(store));
  const planKey = { ...key(7), planPath: PLAN_PATH };
  const { state, active: open } = await planOf(store, planKey);
  assert.deepEqual([open, state.pr.headSha, state.fork], [true, pushed, undefined]);
  assert.equal(
    state.plan.stages.find((stage) => stage.id === "d")?.name,
    "Join them",
    "the changed plan runs",
  );
  fake.close();
  assert.deepEqual(fake.unhandled, []);
  gh.done();
});
