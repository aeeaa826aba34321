import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { reconcilePlans } from "../../app/engine/reconcile-plans.ts";
import { readStoredPlan } from "../../app/engine/stored-plan.ts";
import { formatPlanKey } from "../../app/store/store.ts";
import type { PlanKey, Store } from "../../app/store/store.ts";
import { DEFAULT_SETTINGS } from "../../src/orchestrator/events.ts";
import type { PlanState, Session } from "../../src/orchestrator/state.ts";
import { makeZip } from "../github/make-zip.ts";
import { HEAD_SHA, makeHeartbeat, makePlanState, makeSession } from "../status/make-plan-state.ts";
import type { StageInput } from "../status/make-plan-state.ts";
import { mockGitHub, type GitHubMock } from "../support/github-mock.ts";
import { makeEngineDeps, storePlans } from "./engine-fixture.ts";
import { openTempStore } from "./loom-harness.ts";

/*
 * The periodic reconcile, as a user relies on it when a webhook never came: the pull request is
 * read again, then each live session's run (a finished run ends its session, a started one marks
 * it running, a running one's newest heartbeat is read when due), and the plan is ticked, so a
 * silent session is judged hung. Ended and undispatched sessions cost no request; a plan GitHub
 * cannot be read for is left as it was, and the other plans are still reconciled.
 */

const NOW = Date.UTC(2026, 10, 27, 16, 0, 0);
const HALF_TIMEOUT = DEFAULT_SETTINGS.heartbeatTimeoutMs / 2;
const BLOB = "https://blob.example";
const REPO = "/repos/acme/widgets";
const key = (pr: number, planPath = "doc/plans/PLAN-demo.md"): PlanKey => ({
  installationId: 4242,
  owner: "acme",
  repo: "widgets",
  pr,
  planPath,
});
const KEY = key(7);

type Line = { level: number; msg: string; plan?: string; stageId?: string; reason?: string };

let gh: GitHubMock | undefined;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  gh?.cleanup();
  gh = undefined;
  for (const undo of cleanups.splice(0).reverse()) await undo();
});

/** A session alive a moment ago (not yet due for a heartbeat read). */
const live = (overrides: Partial<Session>): Session =>
  makeSession({ dispatchedAt: NOW - 60_000, startedAt: NOW - 50_000, lastSeenAt: NOW - 1_000, ...overrides });

/** One stage `a` (executing) with `sessions`, plus any other stages. */
function planWith(
  sessions: Session[],
  others: StageInput[] = [],
  overrides: Partial<PlanState> = {},
): PlanState {
  return makePlanState([{ id: "a", status: "executing", attempt: sessions.length, sessions }, ...others], {
    updatedAt: NOW - 60_000,
    ...overrides,
  });
}

async function setUp(plans: { key: PlanKey; state: PlanState }[]) {
  const { store, close } = await openTempStore();
  cleanups.push(close);
  await storePlans(store, plans, NOW - 60_000);
  gh = mockGitHub();
  const lines: Line[] = [];
  const { deps } = makeEngineDeps(store, NOW, lines);
  return { store, deps, lines, api: gh.api, gh };
}

/** GitHub's pull request as loom last saw it (nothing to heal). */
function pull(api: GitHubMock["api"], pr = 7, state = "open") {
  api.get(`${REPO}/pulls/${pr}`).reply(200, {
    number: pr,
    state,
    user: { login: "alice" },
    labels: [],
    head: { ref: "feature/demo", sha: HEAD_SHA, repo: { full_name: "acme/widgets" } },
    base: { ref: "main" },
  });
}

function run(api: GitHubMock["api"], id: number, status: string, conclusion: string | null = null) {
  api.get(`${REPO}/actions/runs/${id}`).reply(200, {
    id,
    status,
    conclusion,
    html_url: `https://github.com/acme/widgets/actions/runs/${id}`,
    display_title: `loom run ${id}`,
  });
}

/** The run's artifact list: `files` maps an artifact name to its zip's files (served once each). */
function artifacts(gh: GitHubMock, runId: number, files: Record<string, Record<string, string>>) {
  const list = Object.entries(files).map(([name, content], index) => {
    const id = runId * 10 + index;
    gh.api.get(`${REPO}/actions/artifacts/${id}/zip`).reply(302, "", { location: `${BLOB}/blob/${id}` });
    gh.other(BLOB).get(`/blob/${id}`).reply(200, makeZip(content), { "content-type": "application/zip" });
    return {
      id,
      name,
      size_in_bytes: 200,
      created_at: "2026-11-27T15:59:00Z",
      expired: false,
      url: "u",
      archive_download_url: "d",
    };
  });
  gh.api
    .get(`${REPO}/actions/runs/${runId}/artifacts`)
    .query({ per_page: "100" })
    .reply(200, { total_count: list.length, artifacts: list });
}

/** A heartbeat artifact of stage a, attempt `attempt`, taken at `at`. */
const heartbeatFile = (at: number, attempt = 1) => ({
  "heartbeat.json": JSON.stringify({
    stage_id: "a",
    session_id: "s",
    attempt,
    timestamp: new Date(at).toISOString(),
    context_percent: 12,
    last_tool: "Write",
    activity: "Write src/a.ts",
    turns: 4,
    cost_usd: 0.02,
  }),
});

async function stored(store: Store, planKey = KEY) {
  const record = await store.getPlan(planKey);
  assert.ok(record);
  return { version: record.version, active: record.active, state: readStoredPlan(record).state };
}

const sessionsOf = (state: PlanState, stageId = "a") => state.stages[stageId]?.sessions ?? [];

/** The GitHub reads a reconcile made, in order. */
const reads = (g: GitHubMock) => g.requests.map((request) => `${request.method} ${request.path}`);

test("only live, dispatched sessions have their run read: ended sessions and a dispatch without a run cost nothing", async () => {
  const sessions = [
    live({ attempt: 1, status: "crashed", runId: 11, outcome: "crashed", finishedAt: NOW - 90_000 }),
    live({ attempt: 2, status: "running", runId: 12 }),
  ];
  const { store, deps, api, gh } = await setUp([
    {
      key: KEY,
      state: planWith(sessions, [
        { id: "b", status: "executing", attempt: 1, sessions: [live({ status: "spawning", runId: null })] },
        {
          id: "c",
          status: "completed",
          attempt: 1,
          sessions: [live({ status: "completed", runId: 13, outcome: "completed", finishedAt: NOW - 5_000 })],
        },
        { id: "d", status: "executing", attempt: 1, sessions: [live({ status: "cancelled", runId: 14 })] },
      ]),
    },
  ]);
  pull(api);
  run(api, 12, "in_progress");
  await reconcilePlans(deps);
  assert.deepEqual(reads(gh), [`GET ${REPO}/pulls/7`, `GET ${REPO}/actions/runs/12`]);
  const after = await stored(store);
  assert.equal(after.state.updatedAt, NOW, "ticked");
  assert.deepEqual(
    sessionsOf(after.state).map((s) => s.status),
    ["crashed", "running"],
  );
  assert.equal(sessionsOf(after.state, "b")[0]?.status, "spawning", "the dispatch still waits for its run");
  gh.done();
});

test("a dispatched session whose run has started is marked running from now; one whose run is still queued keeps waiting", async () => {
  const { store, deps, api, gh } = await setUp([
    {
      key: KEY,
      state: planWith(
        [live({ status: "spawning", runId: 21, startedAt: null, lastSeenAt: NOW - 30_000 })],
        [
          {
            id: "b",
            status: "executing",
            attempt: 1,
            sessions: [live({ status: "spawning", runId: 22, startedAt: null, lastSeenAt: NOW - 30_000 })],
          },
        ],
      ),
    },
  ]);
  pull(api);
  run(api, 21, "in_progress");
  run(api, 22, "queued");
  await reconcilePlans(deps);
  const { state } = await stored(store);
  const [started] = sessionsOf(state);
  assert.deepEqual(
    [started?.status, started?.startedAt, started?.lastSeenAt],
    ["running", NOW, NOW],
    "started now, and seen now",
  );
  const [queued] = sessionsOf(state, "b");
  assert.deepEqual([queued?.status, queued?.startedAt], ["spawning", null]);
  gh.done();
});

test("a run that finished while its webhook was lost ends its session now, and nothing more of it is read", async () => {
  // Silent for longer than half the timeout: a running run would have its heartbeats read.
  const session = live({ status: "running", runId: 31, lastSeenAt: NOW - HALF_TIMEOUT - 1 });
  const { store, deps, api, gh, lines } = await setUp([{ key: KEY, state: planWith([session]) }]);
  pull(api);
  run(api, 31, "completed", "cancelled");
  artifacts(gh, 31, {});
  await reconcilePlans(deps);
  assert.deepEqual(reads(gh), [
    `GET ${REPO}/pulls/7`,
    `GET ${REPO}/actions/runs/31`,
    `GET ${REPO}/actions/runs/31/artifacts?per_page=100`,
  ]);
  const [ended] = sessionsOf((await stored(store)).state);
  assert.deepEqual(
    [ended?.status, ended?.outcome, ended?.finishedAt, ended?.detail],
    ["cancelled", "cancelled", NOW, "the run was cancelled"],
  );
  assert.deepEqual(
    lines.filter((line) => line.level >= 40),
    [],
  );
  gh.done();
});

test("a running session silent for half the heartbeat timeout has its newest heartbeat read, and is seen alive now", async () => {
  const session = live({ status: "running", runId: 41, lastSeenAt: NOW - HALF_TIMEOUT });
  const { store, deps, api, gh } = await setUp([{ key: KEY, state: planWith([session]) }]);
  pull(api);
  run(api, 41, "in_progress");
  artifacts(gh, 41, { "loom-heartbeat-1": heartbeatFile(NOW - 20_000) });
  await reconcilePlans(deps);
  const [seen] = sessionsOf((await stored(store)).state);
  assert.equal(seen?.lastSeenAt, NOW);
  assert.deepEqual(seen?.lastHeartbeat, {
    timestamp: NOW - 20_000,
    contextPercent: 12,
    lastTool: "Write",
    activity: "Write src/a.ts",
    turns: 4,
    costUsd: 0.02,
  });
  gh.done();
});

test("a heartbeat newer than the one loom has replaces it; an older one read again changes nothing and warns of nothing", async () => {
  const known = makeHeartbeat({ timestamp: NOW - 200_000, activity: "npm test" });
  const due = { status: "running" as const, lastSeenAt: NOW - HALF_TIMEOUT, lastHeartbeat: known };
  const { store, deps, api, gh, lines } = await setUp([
    { key: KEY, state: planWith([live({ ...due, runId: 51 })]) },
    {
      key: key(8),
      state: planWith([live({ ...due, runId: 52 })], [], {
        pr: { number: 8, headRef: "feature/demo", headSha: HEAD_SHA, baseRef: "main" },
      }),
    },
  ]);
  pull(api);
  pull(api, 8);
  run(api, 51, "in_progress");
  artifacts(gh, 51, { "loom-heartbeat-3": heartbeatFile(NOW - 10_000) });
  run(api, 52, "in_progress");
  artifacts(gh, 52, { "loom-heartbeat-1": heartbeatFile(NOW - 200_000) });
  await reconcilePlans(deps);
  const [newer] = sessionsOf((await stored(store)).state);
  assert.deepEqual([newer?.lastHeartbeat?.timestamp, newer?.lastSeenAt], [NOW - 10_000, NOW]);
  const [same] = sessionsOf((await stored(store, key(8))).state);
  assert.deepEqual([same?.lastHeartbeat, same?.lastSeenAt], [known, NOW - HALF_TIMEOUT]);
  assert.deepEqual(
    lines.filter((line) => line.level >= 40),
    [],
  );
  gh.done();
});

test("a running session not yet silent for half the timeout, or run on GitHub Enterprise Server, has no heartbeat read", async () => {
  const { store, deps, api, gh } = await setUp([
    {
      key: KEY,
      state: planWith([live({ status: "running", runId: 61, lastSeenAt: NOW - HALF_TIMEOUT + 1 })]),
    },
    {
      key: key(8),
      state: planWith([live({ status: "running", runId: 62, lastSeenAt: NOW - 2 * HALF_TIMEOUT - 1 })], [], {
        pr: { number: 8, headRef: "feature/demo", headSha: HEAD_SHA, baseRef: "main" },
        settings: { ...DEFAULT_SETTINGS, liveHeartbeats: false },
      }),
    },
  ]);
  pull(api);
  pull(api, 8);
  run(api, 61, "in_progress");
  run(api, 62, "in_progress");
  await reconcilePlans(deps);
  assert.deepEqual(reads(gh), [
    `GET ${REPO}/pulls/7`,
    `GET ${REPO}/pulls/8`,
    `GET ${REPO}/actions/runs/61`,
    `GET ${REPO}/actions/runs/62`,
  ]);
  const [ghes] = sessionsOf((await stored(store, key(8))).state);
  assert.equal(ghes?.status, "running", "silence on GHES says nothing: never judged hung");
  const [quiet] = sessionsOf((await stored(store)).state);
  assert.equal(quiet?.lastSeenAt, NOW - HALF_TIMEOUT + 1);
  gh.done();
});

test("a running run with no heartbeat past the timeout is judged hung by the reconcile's tick and cancelled", async () => {
  const silent = live({ status: "running", runId: 71, lastSeenAt: NOW - 2 * HALF_TIMEOUT - 1_000 });
  const { store, deps, api, gh } = await setUp([{ key: KEY, state: planWith([silent]) }]);
  pull(api);
  run(api, 71, "in_progress");
  artifacts(gh, 71, {});
  await reconcilePlans(deps);
  const { state } = await stored(store);
  const [hung] = sessionsOf(state);
  assert.deepEqual([hung?.status, hung?.detail], ["hung", "no heartbeat for 301 s"]);
  const cancel = "bbbbbbbbbbbb-pr7-PLAN-demo:a:1:cancel";
  assert.deepEqual((await store.getEffect(`${formatPlanKey(KEY)}|${cancel}`))?.effect, {
    type: "cancelRun",
    key: cancel,
    stageId: "a",
    runId: 71,
  });
  gh.done();
});

test("an unreadable heartbeat is logged as a warning naming the plan and stage, and the session is not seen alive", async () => {
  const session = live({ status: "running", runId: 81, lastSeenAt: NOW - HALF_TIMEOUT });
  const { store, deps, api, gh, lines } = await setUp([{ key: KEY, state: planWith([session]) }]);
  pull(api);
  run(api, 81, "in_progress");
  artifacts(gh, 81, { "loom-heartbeat-2": { "heartbeat.json": "{ not json" } });
  await reconcilePlans(deps);
  const warnings = lines.filter((line) => line.level >= 40);
  assert.deepEqual(
    warnings.map((line) => [line.msg, line.plan, line.stageId]),
    [["unreadable heartbeat", "acme/widgets#7:doc/plans/PLAN-demo.md", "a"]],
  );
  assert.match(warnings[0]?.reason ?? "", /^loom-heartbeat-2: not JSON/);
  const { state } = await stored(store);
  assert.equal(state.updatedAt, NOW, "ticked all the same");
  assert.deepEqual(
    [sessionsOf(state)[0]?.lastSeenAt, sessionsOf(state)[0]?.lastHeartbeat],
    [NOW - HALF_TIMEOUT, null],
  );
  gh.done();
});

test("a plan GitHub cannot be read for is left as it was and logged; the next plan is reconciled all the same", async () => {
  const { store, deps, api, gh, lines } = await setUp([
    { key: KEY, state: planWith([live({ status: "running", runId: 91 })]) },
    {
      key: key(7, "doc/plans/PLAN-other.md"),
      state: planWith([live({ status: "spawning", runId: 92, startedAt: null })]),
    },
  ]);
  pull(api);
  api.get(`${REPO}/actions/runs/91`).reply(502, { message: "Bad Gateway" });
  run(api, 92, "in_progress");
  await reconcilePlans(deps);
  const failed = await stored(store);
  assert.deepEqual([failed.version, failed.state.updatedAt], [1, NOW - 60_000], "not ticked");
  const errors = lines.filter((line) => line.level >= 50);
  assert.deepEqual(
    errors.map((line) => [line.msg, line.plan]),
    [["reconcile of a plan failed", "acme/widgets#7:doc/plans/PLAN-demo.md"]],
  );
  const other = await stored(store, key(7, "doc/plans/PLAN-other.md"));
  assert.equal(sessionsOf(other.state)[0]?.status, "running");
  gh.done();
});

test("a plan whose pull request was closed meanwhile is closed first, and its runs are not read", async () => {
  const { store, deps, api, gh } = await setUp([
    { key: KEY, state: planWith([live({ status: "running", runId: 101 })]) },
  ]);
  pull(api, 7, "closed");
  await reconcilePlans(deps);
  assert.deepEqual(reads(gh), [`GET ${REPO}/pulls/7`]);
  const after = await stored(store);
  assert.deepEqual([after.active, after.state.closed], [false, true]);
  gh.done();
});
