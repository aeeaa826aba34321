import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { onWorkflowRun } from "../../app/engine/on-workflow-run.ts";
import { readStoredPlan } from "../../app/engine/stored-plan.ts";
import type { Store } from "../../app/store/store.ts";
import type { Session } from "../../src/orchestrator/state.ts";
import { makeZip } from "../github/make-zip.ts";
import { makePlanState, makeSession } from "../status/make-plan-state.ts";
import { mockGitHub, type GitHubMock } from "../support/github-mock.ts";
import { workflowRunPayload } from "../support/webhook-payloads.ts";
import { makeEngineDeps, storePlans } from "./engine-fixture.ts";
import { openTempStore } from "./loom-harness.ts";
import { passingResult } from "./stage-results.ts";
import { DEMO_KEY } from "./stored-plan-fixture.ts";

/*
 * A stage's run started or finished, as GitHub's `workflow_run` webhook tells it: a run loom
 * recorded starts its session (`in_progress`) or ends it (`completed`, how it ended read from the
 * webhook's conclusion and the run's artifacts). A run that is no stage's, a session that already
 * ended, or any other action changes nothing and costs no request.
 */

const NOW = Date.UTC(2026, 10, 27, 18, 30, 0);
const BLOB = "https://blob.example";
const REPO = "/repos/acme/widgets";
const KEY = DEMO_KEY;

let gh: GitHubMock | undefined;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  gh?.cleanup();
  gh = undefined;
  for (const undo of cleanups.splice(0).reverse()) await undo();
});

async function setUp(sessions: Session[]) {
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
  const { deps, installations } = makeEngineDeps(store, NOW);
  return { store, deps, gh, installations };
}

const sessionOf = async (store: Store, attempt = 1) => {
  const record = await store.getPlan(KEY);
  assert.ok(record);
  const { state } = readStoredPlan(record);
  return {
    version: record.version,
    stage: state.stages["a"],
    session: state.stages["a"]?.sessions[attempt - 1],
  };
};

/** The run's artifacts: `loom-result` holding `result` (none when null). */
function resultArtifact(g: GitHubMock, runId: number, result: unknown) {
  const artifacts =
    result === null
      ? []
      : [
          {
            id: 700,
            name: "loom-result",
            size_in_bytes: 300,
            created_at: "2026-11-27T18:29:00Z",
            expired: false,
            url: "u",
            archive_download_url: "d",
          },
        ];
  g.api
    .get(`${REPO}/actions/runs/${runId}/artifacts`)
    .query(true)
    .reply(200, { total_count: artifacts.length, artifacts });
  if (result === null) return;
  g.api.get(`${REPO}/actions/artifacts/700/zip`).reply(302, "", { location: `${BLOB}/blob/700` });
  g.other(BLOB)
    .get("/blob/700")
    .reply(200, makeZip({ "loom-result.json": JSON.stringify(result) }), {
      "content-type": "application/zip",
    });
}

const spawning = (runId: number | null = 12) =>
  makeSession({
    status: "spawning",
    runId,
    startedAt: null,
    dispatchedAt: NOW - 60_000,
    lastSeenAt: NOW - 60_000,
  });

test("a recorded run in progress starts its session now", async () => {
  const { store, deps, gh } = await setUp([spawning()]);
  await onWorkflowRun(deps, workflowRunPayload("in_progress", { id: 12, displayTitle: "loom x" }));
  const { session } = await sessionOf(store);
  assert.deepEqual([session?.status, session?.startedAt, session?.lastSeenAt], ["running", NOW, NOW]);
  assert.deepEqual(gh.requests, [], "nothing read from GitHub");
  gh.done();
});

test("a recorded run that completed ends its session with its result, read from the run's artifact", async () => {
  const { store, deps, gh, installations } = await setUp([
    makeSession({ runId: 12, lastSeenAt: NOW - 1_000 }),
  ]);
  resultArtifact(gh, 12, passingResult("a"));
  await onWorkflowRun(
    deps,
    workflowRunPayload("completed", { id: 12, displayTitle: "loom x", conclusion: "success" }),
  );
  const { stage, session } = await sessionOf(store);
  assert.deepEqual(
    [session?.status, session?.outcome, session?.finishedAt, session?.detail],
    ["completed", "completed", NOW, "all acceptance checks passed"],
  );
  assert.equal(stage?.status, "completed");
  assert.deepEqual(installations, [4242], "on the delivery's installation");
  assert.ok(
    gh.requests.every((request) => request.path !== `${REPO}/actions/runs/12`),
    "the webhook said how the run ended: the run itself is not read again",
  );
  gh.done();
});

test("a run that completed without a result is a crash, as the webhook's conclusion says", async () => {
  const { store, deps, gh } = await setUp([makeSession({ runId: 12, lastSeenAt: NOW - 1_000 })]);
  resultArtifact(gh, 12, null);
  await onWorkflowRun(
    deps,
    workflowRunPayload("completed", { id: 12, displayTitle: "loom x", conclusion: "failure" }),
  );
  const { session } = await sessionOf(store);
  assert.deepEqual(
    [session?.status, session?.detail],
    ["crashed", "the run ended (failure) without a loom-result"],
  );
  gh.done();
});

test("the completion of a session that already ended reads nothing and changes nothing", async () => {
  const ended = makeSession({ runId: 12, status: "hung", outcome: "hung", finishedAt: NOW - 5_000 });
  const { store, deps, gh } = await setUp([ended]);
  await onWorkflowRun(
    deps,
    workflowRunPayload("completed", { id: 12, displayTitle: "loom x", conclusion: "success" }),
  );
  const { version, session } = await sessionOf(store);
  assert.deepEqual([version, session?.status], [1, "hung"]);
  assert.deepEqual(gh.requests, []);
  gh.done();
});

test("a run that is no stage's, another action, or a payload that is no workflow run changes nothing", async () => {
  const { store, deps, gh } = await setUp([spawning()]);
  await onWorkflowRun(deps, workflowRunPayload("in_progress", { id: 99, displayTitle: "loom other" }));
  await onWorkflowRun(deps, workflowRunPayload("completed", { id: 99, displayTitle: "loom other" }));
  await onWorkflowRun(deps, {
    ...workflowRunPayload("in_progress", { id: 12, displayTitle: "x" }),
    action: "requested",
  });
  await onWorkflowRun(deps, { action: "in_progress" });
  const { version, session } = await sessionOf(store);
  assert.deepEqual([version, session?.status], [1, "spawning"]);
  assert.deepEqual(gh.requests, []);
  gh.done();
});

test("a dispatch without a run id takes loom's own run by its key, and a run that completed first ends it", async () => {
  const { store, deps, gh } = await setUp([spawning(null)]);
  const title = `loom bbbbbbbbbbbb-pr7-PLAN-demo:a:1:dispatch`;
  const run = workflowRunPayload("completed", { id: 13, displayTitle: title, conclusion: "cancelled" });
  // As GitHub shows loom's own dispatch: its caller workflow, started by loom's bot after the dispatch.
  Object.assign(run["workflow_run"] as object, {
    path: ".github/workflows/loom.yml",
    created_at: new Date(NOW - 30_000).toISOString(),
    actor: { login: "loom[bot]" },
    triggering_actor: { login: "loom[bot]" },
  });
  resultArtifact(gh, 13, null);
  await onWorkflowRun(deps, run);
  const { session } = await sessionOf(store);
  assert.deepEqual([session?.runId, session?.status, session?.outcome], [13, "cancelled", "cancelled"]);
  gh.done();
});

test("the completion of a retry's run ends that attempt, past the earlier attempt that already ended", async () => {
  const { store, deps, gh } = await setUp([
    makeSession({ attempt: 1, runId: 11, status: "crashed", outcome: "crashed", finishedAt: NOW - 90_000 }),
    makeSession({ attempt: 2, runId: 12, lastSeenAt: NOW - 1_000 }),
  ]);
  resultArtifact(gh, 12, null);
  await onWorkflowRun(
    deps,
    workflowRunPayload("completed", { id: 12, displayTitle: "loom x", conclusion: "cancelled" }),
  );
  const { session } = await sessionOf(store, 2);
  assert.deepEqual([session?.status, session?.outcome], ["cancelled", "cancelled"]);
  gh.done();
});

test("a completion whose run GitHub still reports in progress changes nothing", async () => {
  const { store, deps, gh } = await setUp([makeSession({ runId: 12, lastSeenAt: NOW - 1_000 })]);
  const payload = workflowRunPayload("completed", { id: 12, displayTitle: "loom x" });
  Object.assign(payload["workflow_run"] as object, { status: "in_progress", conclusion: null });
  gh.api.get(`${REPO}/actions/runs/12`).reply(200, {
    id: 12,
    status: "in_progress",
    conclusion: null,
    html_url: "https://github.com/acme/widgets/actions/runs/12",
    display_title: "loom x",
  });
  await onWorkflowRun(deps, payload);
  const { version, session } = await sessionOf(store);
  assert.deepEqual([version, session?.status], [1, "running"]);
  gh.done();
});
