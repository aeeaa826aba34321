import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { executeEffect } from "../../app/github/execute-effect.ts";
import type { Effect } from "../../src/orchestrator/effects.ts";
import { mockGitHub } from "../support/github-mock.ts";
import type { GitHubMock } from "../support/github-mock.ts";
import { makeDiamond, makeSession, T0 } from "../status/make-plan-state.ts";
import { makeContext } from "./make-context.ts";

/*
 * Dispatching a stage run, answer by answer: when loom looks for a run before dispatching, how it
 * finds a run GitHub gave no id for, and what a refused dispatch tells the plan.
 */

const KEY = "bbbbbbbb:a:2";
const AT = T0 + 600_000;
const RUNS = "/repos/octo/repo/actions/workflows/loom.yml/runs";
const DISPATCH = "/repos/octo/repo/actions/workflows/loom.yml/dispatches";
const runsQuery = { event: "workflow_dispatch", branch: "main", per_page: "100" };
const BOT = "loom[bot]";
const CONFIG = { workflowFile: "loom.yml", defaultBranch: "main", botLogin: BOT };
const retry: Effect = {
  type: "dispatchRun",
  key: KEY,
  stageId: "a",
  attempt: 2,
  kind: "recovery",
  branch: "loom/pr-7/PLAN-demo/a",
  previousRunId: 4100,
};
const dispatched = (runId: number) => [{ type: "run.dispatched", at: AT, stageId: "a", attempt: 2, runId }];

function run(id: number, createdAt: number) {
  return {
    id,
    name: "loom",
    display_title: `loom a [${KEY}]`,
    html_url: `https://github.com/octo/repo/actions/runs/${id}`,
    status: "queued",
    conclusion: null,
    event: "workflow_dispatch",
    path: ".github/workflows/loom.yml",
    head_branch: "main",
    created_at: new Date(createdAt).toISOString(),
    actor: { login: BOT },
    triggering_actor: { login: BOT },
  };
}

let gh: GitHubMock | undefined;
afterEach(() => gh?.cleanup());

describe("dispatching a stage run", () => {
  it("a first claim dispatches at once, with the previous run and the plan file's current name in the inputs", async () => {
    gh = mockGitHub();
    gh.api.post(DISPATCH).reply(200, { workflow_run_id: 4242, run_url: "u", html_url: "h" });
    const state = { ...makeDiamond(), planFile: "doc/plans/IN_PROGRESS-PLAN-demo.md" };
    const ctx = makeContext(state, { attempt: 1, config: CONFIG });
    assert.deepEqual(await executeEffect(ctx, retry), dispatched(4242));
    const inputs = (gh.find("POST", DISPATCH)[0]?.body as { inputs: Record<string, string> }).inputs;
    assert.equal(inputs["previous_run_id"], "4100");
    assert.equal(inputs["plan_path"], "doc/plans/IN_PROGRESS-PLAN-demo.md");
    assert.equal(inputs["attempt"], "2");
    assert.equal(inputs["kind"], "recovery");
    assert.equal(gh.find("GET", RUNS).length, 0);
    assert.deepEqual(ctx.lines.at(-1), {
      level: "info",
      data: { stage: "a", attempt: 2, runId: 4242 },
      message: "stage run dispatched",
    });
    gh.done();
  });

  it("a later claim looks for its run from the time this attempt was dispatched, not the first attempt's", async () => {
    gh = mockGitHub();
    // Created 5 minutes before the clock (clock skew): after this attempt's dispatch minus the margin.
    gh.api
      .get(RUNS)
      .query(runsQuery)
      .reply(200, { total_count: 1, workflow_runs: [run(77, T0 - 5 * 60_000)] });
    const state = makeDiamond({
      a: {
        status: "executing",
        attempt: 2,
        sessions: [
          makeSession({ attempt: 1, dispatchedAt: T0 + 3_600_000 }),
          makeSession({ attempt: 2, dispatchedAt: T0 }),
        ],
      },
    });
    const events = await executeEffect(makeContext(state, { attempt: 2, config: CONFIG }), retry);
    assert.deepEqual(events, dispatched(77));
    gh.done();
  });

  it("without a record of this attempt's dispatch, the clock is the dispatch time", async () => {
    gh = mockGitHub();
    gh.api
      .get(RUNS)
      .query(runsQuery)
      .reply(200, { total_count: 1, workflow_runs: [run(77, T0 - 5 * 60_000)] });
    gh.api.post(DISPATCH).reply(200, { workflow_run_id: 4243, run_url: "u", html_url: "h" });
    const state = makeDiamond({
      a: { status: "executing", attempt: 2, sessions: [makeSession({ attempt: 1, dispatchedAt: T0 })] },
    });
    const events = await executeEffect(makeContext(state, { attempt: 2, config: CONFIG }), retry);
    assert.deepEqual(events, dispatched(4243), "the older run is not taken for this dispatch");
    gh.done();
  });

  it("a server that refuses return_run_details with 400 gets a plain dispatch, and the run is looked for every 2 s, 4 times", async () => {
    gh = mockGitHub();
    gh.api.post(DISPATCH).reply(400, { message: "Unexpected inputs provided" });
    gh.api.post(DISPATCH).reply(204);
    gh.api.get(RUNS).query(runsQuery).times(4).reply(200, { total_count: 0, workflow_runs: [] });
    const slept: number[] = [];
    const ctx = makeContext(makeDiamond(), {
      attempt: 1,
      config: CONFIG,
      sleep: (ms) => {
        slept.push(ms);
        return Promise.resolve();
      },
    });
    assert.deepEqual(await executeEffect(ctx, retry), [], "the webhook or the reconcile finds the run later");
    assert.deepEqual(slept, [2_000, 2_000, 2_000, 2_000]);
    assert.equal("return_run_details" in (gh.find("POST", DISPATCH)[1]?.body as object), false);
    assert.deepEqual(
      ctx.lines.map((line) => [line.level, line.message]),
      [
        ["warn", "dispatch with return_run_details refused; dispatching without"],
        ["warn", "dispatched run not found yet"],
      ],
    );
    assert.equal(ctx.calls?.by.dispatchRun, 6);
    gh.done();
  });

  it("a dispatch answered without a run id is followed by a look-up that finds it", async () => {
    gh = mockGitHub();
    gh.api.post(DISPATCH).reply(200, {});
    gh.api
      .get(RUNS)
      .query(runsQuery)
      .reply(200, { total_count: 1, workflow_runs: [run(99, T0 + 700_000)] });
    assert.deepEqual(
      await executeEffect(makeContext(makeDiamond(), { attempt: 1, config: CONFIG }), retry),
      dispatched(99),
    );
    assert.equal(gh.find("POST", DISPATCH).length, 1);
    gh.done();
  });

  it("a dispatch GitHub refuses for good, even without return_run_details, crashes the attempt with GitHub's reason", async () => {
    gh = mockGitHub();
    gh.api.post(DISPATCH).reply(422, { message: "Unexpected inputs provided" });
    gh.api.post(DISPATCH).reply(422, { message: "Required input 'key' not provided" });
    const ctx = makeContext(makeDiamond(), { attempt: 1, config: CONFIG });
    assert.deepEqual(await executeEffect(ctx, retry), [
      {
        type: "run.finished",
        at: AT,
        stageId: "a",
        attempt: 2,
        runId: 0,
        outcome: "crashed",
        detail: "GitHub refused to start loom.yml (422): Required input 'key' not provided",
      },
    ]);
    assert.deepEqual(ctx.lines.at(-1), {
      level: "error",
      data: { stage: "a", attempt: 2, status: 422 },
      message: "dispatch refused",
    });
    gh.done();
  });

  it("a plain dispatch GitHub could not answer is tried again by the outbox", async () => {
    gh = mockGitHub();
    gh.api.post(DISPATCH).reply(400, { message: "Unexpected inputs provided" });
    gh.api.post(DISPATCH).reply(502, { message: "Bad Gateway" });
    await assert.rejects(executeEffect(makeContext(makeDiamond(), { attempt: 1, config: CONFIG }), retry), {
      retryable: true,
      message: "dispatching loom.yml: 502 Bad Gateway",
    });
    gh.done();
  });

  it("a first refusal other than 400/422 is not answered with a second dispatch", async () => {
    gh = mockGitHub();
    gh.api.post(DISPATCH).reply(404, { message: "Not Found" });
    const events = await executeEffect(makeContext(makeDiamond(), { attempt: 1, config: CONFIG }), retry);
    assert.equal(
      (events[0] as { detail?: string }).detail,
      "GitHub refused to start loom.yml (404): Not Found",
    );
    assert.equal(gh.find("POST", DISPATCH).length, 1);
    gh.done();
  });

  it("a malformed run in the list is skipped, and loom's run after it is taken", async () => {
    gh = mockGitHub();
    gh.api
      .get(RUNS)
      .query(runsQuery)
      .reply(200, { total_count: 2, workflow_runs: [{ id: "x" }, run(5, T0 + 700_000)] });
    assert.deepEqual(
      await executeEffect(makeContext(makeDiamond(), { attempt: 3, config: CONFIG }), retry),
      dispatched(5),
    );
    gh.done();
  });
});
