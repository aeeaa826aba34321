import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { executeEffect } from "../../app/github/execute-effect.ts";
import { createGitHubCache } from "../../app/github/github-cache.ts";
import { publishPlanErrors } from "../../app/github/publish-plan-errors.ts";
import { formatCheckRunExternalId } from "../../src/status/check-run-external-id.ts";
import { mockGitHub } from "../support/github-mock.ts";
import type { GitHubMock } from "../support/github-mock.ts";
import { HEAD_SHA, makeDiamond, makeSession } from "../status/make-plan-state.ts";
import { makeContext } from "./make-context.ts";

const LIST = `/repos/octo/repo/commits/${HEAD_SHA}/check-runs`;
const externalA = formatCheckRunExternalId("doc/plans/PLAN-demo.md", "a");
const listQuery = (name: string) => ({ check_name: name, filter: "all", per_page: "100" });
const sync = (stageId: string | null) => ({ type: "syncCheckRun", key: `k:${stageId}`, stageId }) as const;

function checkRun(id: number, status: string, external_id: string, conclusion: string | null = null) {
  return { id, status, conclusion, external_id, output: { title: "t" } };
}

let gh: GitHubMock | undefined;
afterEach(() => gh?.cleanup());

test("a stage check run is created on the head SHA, then updated in place (never duplicated)", async () => {
  gh = mockGitHub();
  gh.api
    .get(LIST)
    .query(listQuery("loom: a"))
    .reply(
      200,
      { total_count: 1, check_runs: [checkRun(3, "completed", "someone-else")] },
      { etag: 'W/"1"' },
    );
  gh.api.post("/repos/octo/repo/check-runs").reply(201, { id: 11 });
  gh.api.patch("/repos/octo/repo/check-runs/11").reply(200, { id: 11 });
  const executing = makeDiamond({ a: { status: "executing", attempt: 1, sessions: [makeSession()] } });
  const ctx = makeContext(executing);
  await executeEffect(ctx, sync("a"));
  const created = gh.find("POST", "/repos/octo/repo/check-runs")[0]?.body as Record<string, unknown>;
  assert.equal(created.name, "loom: a");
  assert.equal(created.head_sha, HEAD_SHA);
  assert.equal(created.status, "in_progress");
  assert.equal(created.external_id, externalA);
  assert.equal(created.details_url, "https://github.com/octo/repo/actions/runs/1001");
  assert.deepEqual(
    (created.actions as { identifier: string }[]).map((a) => a.identifier),
    ["cancel", "skip"],
  );
  ctx.state = makeDiamond({
    a: { status: "completed", merged: true, attempt: 1, sessions: [makeSession({ status: "completed" })] },
  });
  await executeEffect(ctx, sync("a"));
  const updated = gh.find("PATCH", "/repos/octo/repo/check-runs/11")[0]?.body as Record<string, unknown>;
  assert.equal(updated.conclusion, "success");
  assert.equal(updated.status, "completed");
  // Same state again: nothing to write.
  await executeEffect(ctx, sync("a"));
  assert.equal(gh.requests.length, 3);
  gh.done();
});

test("without a cache the check run is found by name and external_id and updated", async () => {
  gh = mockGitHub();
  gh.api
    .get(LIST)
    .query(listQuery("loom: a"))
    .reply(200, {
      total_count: 2,
      check_runs: [checkRun(20, "in_progress", externalA), checkRun(21, "queued", "other")],
    });
  gh.api.patch("/repos/octo/repo/check-runs/20").reply(200, { id: 20 });
  const ctx = makeContext(
    makeDiamond({ a: { status: "executing", attempt: 1, sessions: [makeSession()] } }),
    { cache: undefined },
  );
  await executeEffect(ctx, sync("a"));
  assert.equal(gh.find("POST", "/repos/octo/repo/check-runs").length, 0);
  gh.done();
});

test("a completed check run that goes back to work (a retry) is created anew, so its state and buttons show", async () => {
  gh = mockGitHub();
  gh.api
    .get(LIST)
    .query(listQuery("loom: a"))
    .reply(200, { total_count: 1, check_runs: [checkRun(30, "completed", externalA, "failure")] });
  gh.api.post("/repos/octo/repo/check-runs").reply(201, { id: 31 });
  const ctx = makeContext(
    makeDiamond({ a: { status: "executing", attempt: 2, sessions: [makeSession({ attempt: 2 })] } }),
  );
  await executeEffect(ctx, sync("a"));
  gh.done();
});

test("a repeated look-up of an unchanged commit sends If-None-Match and uses the 304", async () => {
  gh = mockGitHub();
  gh.api
    .get(LIST)
    .query(listQuery("loom: PLAN-demo"))
    .reply(200, { total_count: 0, check_runs: [] }, { etag: '"abc"' });
  gh.api.post("/repos/octo/repo/check-runs").reply(201, { id: 40 });
  gh.api.get(LIST).query(listQuery("loom: PLAN-demo")).matchHeader("if-none-match", '"abc"').reply(304, "");
  gh.api.post("/repos/octo/repo/check-runs").reply(201, { id: 41 });
  const cache = createGitHubCache();
  const ctx = makeContext(makeDiamond(), { cache });
  await executeEffect(ctx, sync(null));
  cache.ids.delete(`check:octo/repo@${HEAD_SHA}#${formatCheckRunExternalId("doc/plans/PLAN-demo.md", null)}`);
  await executeEffect(ctx, sync(null));
  assert.equal(ctx.calls?.notModified, 1);
  const plan = gh.find("POST", "/repos/octo/repo/check-runs")[0]?.body as Record<string, unknown>;
  assert.equal(plan.name, "loom: PLAN-demo");
  assert.match(String((plan.output as { text: string }).text), /```mermaid/);
  gh.done();
});

test("a stage the state does not know gets no check run", async () => {
  gh = mockGitHub();
  assert.deepEqual(await executeEffect(makeContext(makeDiamond()), sync("zzz")), []);
  gh.done();
});

test("an invalid plan gets a failing plan check run with annotations at its lines, 50 per request", async () => {
  gh = mockGitHub();
  const errors = Array.from({ length: 120 }, (_, i) => ({
    message: `problem ${i}`,
    line: i + 1,
    column: 3,
    stage: "a",
  }));
  gh.api.get(LIST).query(listQuery("loom: PLAN-bad")).reply(200, { total_count: 0, check_runs: [] });
  gh.api.post("/repos/octo/repo/check-runs").reply(201, { id: 50 });
  gh.api.patch("/repos/octo/repo/check-runs/50").twice().reply(200, { id: 50 });
  const ctx = makeContext(makeDiamond());
  const id = await publishPlanErrors(ctx, { headSha: HEAD_SHA, planPath: "doc/plans/PLAN-bad.md", errors });
  assert.equal(id, 50);
  const created = gh.find("POST", "/repos/octo/repo/check-runs")[0]?.body as {
    conclusion: string;
    output: { annotations: unknown[] };
  };
  assert.equal(created.conclusion, "failure");
  assert.equal(created.output.annotations.length, 50);
  assert.deepEqual(created.output.annotations[4], {
    path: "doc/plans/PLAN-bad.md",
    start_line: 5,
    end_line: 5,
    start_column: 3,
    end_column: 3,
    annotation_level: "failure",
    message: "problem 4",
    title: "stage a",
  });
  const patches = gh
    .find("PATCH", "/repos/octo/repo/check-runs/50")
    .map((r) => (r.body as { output: { annotations: unknown[] } }).output.annotations.length);
  assert.deepEqual(patches, [50, 20]);
  gh.done();
});

test("a token in a session's detail never reaches the check run", async () => {
  gh = mockGitHub();
  const token = `ghp_${"A1b2C3d4E5".repeat(4)}`;
  gh.api.get(LIST).query(listQuery("loom: a")).reply(200, { total_count: 0, check_runs: [] });
  gh.api.post("/repos/octo/repo/check-runs").reply(201, { id: 60 });
  const detail = `push failed: https://x-access-token:${token}@github.com/octo/repo`;
  const state = makeDiamond({
    a: {
      status: "completed-with-failures",
      attempt: 1,
      sessions: [makeSession({ status: "completed", detail })],
    },
  });
  await executeEffect(makeContext(state), sync("a"));
  const body = JSON.stringify(gh.find("POST", "/repos/octo/repo/check-runs")[0]?.body);
  assert.ok(!body.includes(token));
  assert.match(body, /\[REDACTED\]/);
  gh.done();
});

const OLD_SHA = "0".repeat(40);
const recordedOn = (headSha: string, id: number) => ({ a: { headSha, id } });

test("a check run created on a new head is recorded, found without a look-up, and the old head's run stops spinning", async () => {
  gh = mockGitHub();
  gh.api.post("/repos/octo/repo/check-runs").reply(201, { id: 81 });
  gh.api.get("/repos/octo/repo/check-runs/80").reply(200, checkRun(80, "in_progress", externalA));
  gh.api.patch("/repos/octo/repo/check-runs/80").reply(200, { id: 80 });
  const state = makeDiamond({ a: { status: "executing", attempt: 1, sessions: [makeSession()] } });
  const ctx = makeContext({ ...state, checkRuns: recordedOn(OLD_SHA, 80) });
  const events = await executeEffect(ctx, sync("a"));
  assert.deepEqual(events, [
    { type: "checkRun.created", at: ctx.now(), stageId: "a", headSha: HEAD_SHA, checkRunId: 81 },
  ]);
  assert.equal(gh.find("GET", LIST).length, 0, "a record on another head means none on this one");
  const old = gh.find("PATCH", "/repos/octo/repo/check-runs/80")[0]?.body as {
    status: string;
    conclusion: string;
    output: { title: string; summary: string };
    actions: unknown[];
  };
  assert.deepEqual([old.status, old.conclusion, old.actions], ["completed", "neutral", []]);
  assert.match(old.output.title, /Superseded: the head moved to aaaaaaa/);
  assert.match(old.output.summary, /https:\/\/github\.com\/octo\/repo\/commit\/a{40}/);
  gh.done();
});

test("a stage that finished is written in place on the head its run is on: no new run on the head, nothing superseded", async () => {
  gh = mockGitHub();
  gh.api.patch("/repos/octo/repo/check-runs/90").reply(200, { id: 90 });
  const cache = createGitHubCache();
  cache.written.set("check:90", JSON.stringify({ status: "in_progress" }));
  const merged = makeDiamond({
    a: { status: "completed", merged: true, attempt: 1, sessions: [makeSession({ status: "completed" })] },
  });
  const events = await executeEffect(
    makeContext({ ...merged, checkRuns: recordedOn(OLD_SHA, 90) }, { cache }),
    sync("a"),
  );
  assert.equal(gh.requests.length, 1, "only the update of the recorded run");
  const body = gh.requests[0]?.body as { status?: string; conclusion?: string };
  assert.deepEqual([body.status, body.conclusion], ["completed", "success"]);
  assert.deepEqual(events, [], "the record stays: the run is where it was");
  gh.done();
});

test("the run recorded on the current head is updated without a look-up; an unchanged one is not recorded again", async () => {
  gh = mockGitHub();
  gh.api.patch("/repos/octo/repo/check-runs/95").reply(200, { id: 95 });
  const cache = createGitHubCache();
  cache.written.set("check:95", JSON.stringify({ status: "queued" }));
  const state = makeDiamond({ a: { status: "executing", attempt: 1, sessions: [makeSession()] } });
  const events = await executeEffect(
    makeContext({ ...state, checkRuns: recordedOn(HEAD_SHA, 95) }, { cache }),
    sync("a"),
  );
  assert.deepEqual(events, []);
  gh.done();
});

test("a retried sync looks before creating: its first attempt may have created the run and died", async () => {
  gh = mockGitHub();
  gh.api
    .get(LIST)
    .query(listQuery("loom: a"))
    .reply(200, { total_count: 1, check_runs: [checkRun(97, "in_progress", externalA)] });
  gh.api.patch("/repos/octo/repo/check-runs/97").reply(200, { id: 97 });
  gh.api.get("/repos/octo/repo/check-runs/96").reply(200, checkRun(96, "completed", externalA, "neutral"));
  const state = makeDiamond({ a: { status: "executing", attempt: 1, sessions: [makeSession()] } });
  const ctx = makeContext({ ...state, checkRuns: recordedOn(OLD_SHA, 96) }, { attempt: 2 });
  const events = await executeEffect(ctx, sync("a"));
  assert.equal(gh.find("POST", "/repos/octo/repo/check-runs").length, 0);
  assert.deepEqual(events, [
    { type: "checkRun.created", at: ctx.now(), stageId: "a", headSha: HEAD_SHA, checkRunId: 97 },
  ]);
  gh.done();
});

test("a plan's first run of a check is created without a look-up: every run it created is in its record", async () => {
  gh = mockGitHub();
  gh.api.post("/repos/octo/repo/check-runs").reply(201, { id: 99 });
  const ctx = makeContext({ ...makeDiamond(), checkRuns: {} });
  const events = await executeEffect(ctx, sync(null));
  assert.deepEqual(events, [
    { type: "checkRun.created", at: ctx.now(), stageId: null, headSha: HEAD_SHA, checkRunId: 99 },
  ]);
  assert.equal(gh.requests.length, 1);
  gh.done();
});

test("a stage whose checks failed gets failure annotations where the output pointed, once, with the update that completes it", async () => {
  gh = mockGitHub();
  gh.api.get(LIST).query(listQuery("loom: a")).reply(200, { total_count: 0, check_runs: [] });
  gh.api.post("/repos/octo/repo/check-runs").reply(201, { id: 12 });
  gh.api.patch("/repos/octo/repo/check-runs/12").twice().reply(200, { id: 12 });
  const ctx = makeContext(makeDiamond({ a: { status: "executing", attempt: 1, sessions: [makeSession()] } }));
  await executeEffect(ctx, sync("a"));
  const created = gh.find("POST", "/repos/octo/repo/check-runs")[0]?.body as {
    output: Record<string, unknown>;
  };
  assert.equal(created.output["annotations"], undefined, "a running stage has nothing to annotate");

  const failedCheck = {
    kind: "acceptance" as const,
    name: "npm test",
    command: "npm test",
    passed: false,
    exitCode: 1,
    durationMs: 900,
    outputTail: "FAIL src/a.test.ts\n  expected 2, got 1\n    at src/a.ts:12:5",
    locations: [{ path: "src/a.ts", line: 12, column: 5 }],
  };
  const report = {
    usage: {
      turns: 3,
      inputTokens: 1,
      outputTokens: 1,
      cacheReadTokens: 0,
      cacheCreationTokens: 0,
      costUsd: 0.1,
      durationMs: 1000,
    },
    checks: [
      failedCheck,
      { kind: "acceptance" as const, name: "npm run lint", passed: true, durationMs: 10 },
    ],
    deviations: [],
    learningsAdded: 0,
  };
  const failed = (notes: number) =>
    makeDiamond({
      a: {
        status: "completed-with-failures",
        attempt: 1,
        sessions: [makeSession({ status: "completed", report })],
        notes: Array.from({ length: notes }, (_, i) => ({ at: 1000 + i, text: `note ${i}` })),
      },
    });
  ctx.state = failed(1);
  await executeEffect(ctx, sync("a"));
  ctx.state = failed(2);
  await executeEffect(ctx, sync("a"));
  const [completing, later] = gh
    .find("PATCH", "/repos/octo/repo/check-runs/12")
    .map((r) => r.body as { conclusion: string; output: { annotations?: Record<string, unknown>[] } });
  assert.equal(completing?.conclusion, "failure");
  assert.deepEqual(completing?.output.annotations, [
    {
      path: "src/a.ts",
      start_line: 12,
      end_line: 12,
      start_column: 5,
      end_column: 5,
      annotation_level: "failure",
      title: "acceptance npm test",
      message: "failed with exit code 1:\nFAIL src/a.test.ts\n  expected 2, got 1\n    at src/a.ts:12:5",
    },
  ]);
  assert.equal(later?.output.annotations, undefined, "GitHub appends annotations: a later update sends none");
  gh.done();
});
