import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { executeEffect } from "../../app/github/execute-effect.ts";
import { hasRunKey } from "../../app/github/find-dispatched-run.ts";
import type { Effect } from "../../src/orchestrator/effects.ts";
import { mockGitHub } from "../support/github-mock.ts";
import type { GitHubMock } from "../support/github-mock.ts";
import { makeDiamond, T0 } from "../status/make-plan-state.ts";
import { makeContext, makeRetryingOctokit } from "./make-context.ts";

const KEY = "bbbbbbbb:a:1";
const effect: Effect = {
  type: "dispatchRun",
  key: KEY,
  stageId: "a",
  attempt: 1,
  kind: "stage",
  branch: "loom/pr-7/PLAN-demo/a",
  previousRunId: null,
};
const RUNS = "/repos/octo/repo/actions/workflows/loom.yml/runs";
const DISPATCH = "/repos/octo/repo/actions/workflows/loom.yml/dispatches";
const runsQuery = { event: "workflow_dispatch", branch: "main", per_page: "100" };

const BOT = "loom[bot]";
const CONFIG = { workflowFile: "loom.yml", defaultBranch: "main", botLogin: BOT };

/** A run as GitHub lists it: by default loom's own dispatch of loom.yml, created after the dispatch. */
function run(id: number, title: string, fields: Record<string, unknown> = {}) {
  return {
    id,
    name: "loom",
    display_title: title,
    html_url: `https://github.com/octo/repo/actions/runs/${id}`,
    status: "queued",
    conclusion: null,
    event: "workflow_dispatch",
    path: ".github/workflows/loom.yml",
    head_branch: "main",
    created_at: new Date(T0 + 1_000).toISOString(),
    actor: { login: BOT },
    triggering_actor: { login: BOT },
    ...fields,
  };
}

let gh: GitHubMock | undefined;
afterEach(() => gh?.cleanup());

test("dispatch runs the caller workflow on the default branch with the stage branch in the inputs and returns the run id", async () => {
  gh = mockGitHub();
  gh.api
    .get(RUNS)
    .query(runsQuery)
    .reply(200, { total_count: 1, workflow_runs: [run(5, "loom bbbbbbbb:a:10")] });
  gh.api.post(DISPATCH).reply(200, {
    workflow_run_id: 4242,
    run_url: "https://api.github.com/x",
    html_url: "https://github.com/x",
  });
  const ctx = makeContext(makeDiamond());
  const events = await executeEffect(ctx, effect);
  assert.deepEqual(events, [
    { type: "run.dispatched", at: T0 + 600_000, stageId: "a", attempt: 1, runId: 4242 },
  ]);
  assert.deepEqual(gh.find("POST", DISPATCH)[0]?.body, {
    ref: "main",
    inputs: {
      key: KEY,
      plan_path: "doc/plans/PLAN-demo.md",
      plan_id: "PLAN-demo",
      stage_id: "a",
      attempt: "1",
      kind: "stage",
      branch: "loom/pr-7/PLAN-demo/a",
      base: "feature/demo",
      previous_run_id: "",
    },
    return_run_details: true,
  });
  assert.equal(ctx.calls?.by.dispatchRun, 2);
  gh.done();
});

test("a run already carrying the key is taken instead of dispatching a second one", async () => {
  gh = mockGitHub();
  gh.api
    .get(RUNS)
    .query(runsQuery)
    .reply(200, { total_count: 1, workflow_runs: [run(77, `loom a [${KEY}]`)] });
  const events = await executeEffect(makeContext(makeDiamond(), { config: CONFIG }), effect);
  assert.deepEqual(events, [
    { type: "run.dispatched", at: T0 + 600_000, stageId: "a", attempt: 1, runId: 77 },
  ]);
  assert.equal(gh.find("POST", DISPATCH).length, 0);
  gh.done();
});

test("when the server refuses return_run_details, loom dispatches once more without it and finds the run by its key", async () => {
  gh = mockGitHub();
  gh.api.get(RUNS).query(runsQuery).reply(200, { total_count: 0, workflow_runs: [] });
  gh.api
    .post(DISPATCH)
    .reply(422, { message: 'Invalid request. "return_run_details" is not a permitted key.' });
  gh.api.post(DISPATCH).reply(204);
  gh.api.get(RUNS).query(runsQuery).reply(200, { total_count: 0, workflow_runs: [] });
  gh.api
    .get(RUNS)
    .query(runsQuery)
    .reply(200, { total_count: 1, workflow_runs: [run(88, `loom a [${KEY}]`)] });
  const events = await executeEffect(makeContext(makeDiamond(), { config: CONFIG }), effect);
  assert.deepEqual(events, [
    { type: "run.dispatched", at: T0 + 600_000, stageId: "a", attempt: 1, runId: 88 },
  ]);
  const posts = gh.find("POST", DISPATCH);
  assert.equal(posts.length, 2);
  assert.equal((posts[1]?.body as { return_run_details?: boolean }).return_run_details, undefined);
  gh.done();
});

test("a run titled with the key that loom did not dispatch is never taken for loom's: loom dispatches its own", async () => {
  gh = mockGitHub();
  const title = `loom ${KEY}`;
  const foreign = [
    run(61, title, { actor: { login: "mallory" }, triggering_actor: { login: "mallory" } }),
    run(62, title, { triggering_actor: { login: "mallory" } }),
    run(63, title, { event: "push" }),
    run(64, title, { path: ".github/workflows/evil.yml" }),
    run(65, title, { head_branch: "mallory-branch" }),
    run(66, title, { created_at: new Date(T0 - 3_600_000).toISOString() }),
  ];
  gh.api.get(RUNS).query(runsQuery).reply(200, { total_count: foreign.length, workflow_runs: foreign });
  gh.api.post(DISPATCH).reply(200, {
    workflow_run_id: 4243,
    run_url: "https://api.github.com/x",
    html_url: "https://github.com/x",
  });
  const events = await executeEffect(makeContext(makeDiamond(), { config: CONFIG }), effect);
  assert.deepEqual(events, [
    { type: "run.dispatched", at: T0 + 600_000, stageId: "a", attempt: 1, runId: 4243 },
  ]);
  gh.done();
});

test("a dispatch answered with 500 is not retried blindly: it throws a retryable error", async () => {
  gh = mockGitHub();
  gh.api.get(RUNS).query(runsQuery).reply(200, { total_count: 0, workflow_runs: [] });
  gh.api.post(DISPATCH).reply(500, { message: "boom" });
  const ctx = makeContext(makeDiamond(), { octokit: makeRetryingOctokit() });
  await assert.rejects(executeEffect(ctx, effect), (error: Error & { retryable?: boolean }) => {
    assert.equal(error.retryable, true);
    return true;
  });
  assert.equal(gh.find("POST", DISPATCH).length, 1);
  gh.done();
});

test("a dispatch GitHub refuses for good (missing workflow) finishes the run as crashed with the reason", async () => {
  gh = mockGitHub();
  gh.api.get(RUNS).query(runsQuery).reply(404, { message: "Not Found" });
  await assert.rejects(executeEffect(makeContext(makeDiamond()), effect), /listing runs of loom.yml: 404/);
  gh.api.get(RUNS).query(runsQuery).reply(200, { total_count: 0, workflow_runs: [] });
  gh.api.post(DISPATCH).reply(403, { message: "Resource not accessible by integration" });
  const events = await executeEffect(makeContext(makeDiamond()), effect);
  assert.equal(events[0]?.type, "run.finished");
  assert.match(events[0]?.type === "run.finished" ? events[0].detail : "", /403.*Resource not accessible/);
  gh.done();
});

test("the default branch is read from the repository when the config does not know it", async () => {
  gh = mockGitHub();
  gh.api.get("/repos/octo/repo").reply(200, { default_branch: "trunk" });
  gh.api
    .get(RUNS)
    .query({ ...runsQuery, branch: "trunk" })
    .reply(200, { total_count: 0, workflow_runs: [] });
  gh.api
    .post(DISPATCH, (body: { ref: string }) => body.ref === "trunk")
    .reply(200, { workflow_run_id: 9, run_url: "u", html_url: "h" });
  const ctx = makeContext(makeDiamond(), { config: { workflowFile: "loom.yml" } });
  const events = await executeEffect(ctx, effect);
  assert.equal(events[0]?.type === "run.dispatched" ? events[0].runId : 0, 9);
  gh.done();
});

const keyCases = [
  { title: "loom a [k:a:1]", key: "k:a:1", want: true },
  { title: "loom a [k:a:10]", key: "k:a:1", want: false },
  { title: "loom a k:a:1", key: "k:a:1", want: true },
  { title: "xk:a:1", key: "k:a:1", want: false },
  { title: "loom a (k:a:1) k:a:1x", key: "k:a:1", want: true },
];
for (const c of keyCases) {
  test(`a run titled "${c.title}" ${c.want ? "carries" : "does not carry"} key ${c.key}`, () => {
    assert.equal(hasRunKey(c.title, c.key), c.want);
  });
}

test("a record GitHub refuses for good is named in the crash: the instructions of a continue session, or an amended stage's criteria", async () => {
  const amendment = {
    checkedSha: "c".repeat(40),
    amendments: [{ criterionIndex: 0, command: "true", by: "alice" }],
  };
  const continuation = { instructions: "also the empty case", by: "alice", fromAttempt: 1 };
  for (const [refused, withRecords] of [
    ["the instructions", { kind: "continue", continuation, amendment }],
    ["the amended criteria", { kind: "stage", amendment }],
  ] as const) {
    gh = mockGitHub();
    gh.api.get(RUNS).query(runsQuery).reply(200, { total_count: 0, workflow_runs: [] });
    gh.api
      .post("/repos/octo/repo/git/tags")
      .reply(403, { message: "Resource not accessible by integration" });
    const events = await executeEffect(makeContext(makeDiamond()), { ...effect, attempt: 2, ...withRecords });
    const detail = events[0]?.type === "run.finished" ? events[0].detail : "";
    assert.match(
      detail,
      new RegExp(`^GitHub refused loom's record of ${refused}, so nothing was dispatched \\(403\\)`),
    );
    gh.done();
    gh.cleanup();
    gh = undefined;
  }
});
