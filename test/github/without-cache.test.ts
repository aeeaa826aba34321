import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { readErrorMessage, toEffectError } from "../../app/github/effect-context.ts";
import { executeEffect } from "../../app/github/execute-effect.ts";
import { findDispatchedRun } from "../../app/github/find-dispatched-run.ts";
import { judgeRunIdentity, RunIdentity } from "../../app/github/judge-run-identity.ts";
import { readArtifactFile } from "../../app/github/run-artifacts.ts";
import type { Effect } from "../../src/orchestrator/effects.ts";
import { formatCheckRunExternalId } from "../../src/status/check-run-external-id.ts";
import { mockGitHub } from "../support/github-mock.ts";
import type { GitHubMock } from "../support/github-mock.ts";
import { HEAD_SHA, makeDiamond, makeSession, T0 } from "../status/make-plan-state.ts";
import { makeContext } from "./make-context.ts";
import { makeZip } from "./make-zip.ts";

/*
 * Effects and readers without the process cache (it is optional: losing it costs look-ups, never
 * a wrong write), small effects' logs and counts, and the edges of retryable errors and labels.
 */

const CHECK_RUNS = "/repos/octo/repo/check-runs";
const LIST = `/repos/octo/repo/commits/${HEAD_SHA}/check-runs`;
const COMMENTS = "/repos/octo/repo/issues/7/comments";
const LABELS = "/repos/octo/repo/labels";
const BLOB = "https://results-receiver.actions.githubusercontent.com";
const externalA = formatCheckRunExternalId("doc/plans/PLAN-demo.md", "a");

let gh: GitHubMock | undefined;
afterEach(() => gh?.cleanup());

describe("without the process cache", () => {
  it("a check run is created, and one deleted on GitHub is created anew", async () => {
    gh = mockGitHub();
    const query = { check_name: "loom: a", filter: "all", per_page: "100" };
    gh.api.get(LIST).query(query).reply(200, { total_count: 0, check_runs: [] });
    gh.api.post(CHECK_RUNS).reply(201, { id: 1 });
    gh.api
      .get(LIST)
      .query(query)
      .reply(200, {
        total_count: 1,
        check_runs: [
          { id: 1, status: "in_progress", conclusion: null, external_id: externalA, output: { title: "t" } },
        ],
      });
    gh.api.patch(`${CHECK_RUNS}/1`).reply(404, { message: "Not Found" });
    gh.api.post(CHECK_RUNS).reply(201, { id: 2 });
    const ctx = makeContext(
      makeDiamond({ a: { status: "executing", attempt: 1, sessions: [makeSession()] } }),
      {
        cache: undefined,
      },
    );
    await executeEffect(ctx, { type: "syncCheckRun", key: "k", stageId: "a" });
    await executeEffect(ctx, { type: "syncCheckRun", key: "k", stageId: "a" });
    assert.equal(gh.find("POST", CHECK_RUNS).length, 2);
    gh.done();
  });

  it("a superseded run on an old head is completed", async () => {
    gh = mockGitHub();
    gh.api.post(CHECK_RUNS).reply(201, { id: 81 });
    gh.api.get(`${CHECK_RUNS}/80`).reply(200, {
      id: 80,
      status: "in_progress",
      conclusion: null,
      external_id: externalA,
      output: { title: "t" },
    });
    gh.api.patch(`${CHECK_RUNS}/80`).reply(200, { id: 80 });
    const state = makeDiamond({ a: { status: "executing", attempt: 1, sessions: [makeSession()] } });
    const ctx = makeContext(
      { ...state, checkRuns: { a: { headSha: "0".repeat(40), id: 80 } } },
      { cache: undefined },
    );
    await executeEffect(ctx, { type: "syncCheckRun", key: "k", stageId: "a" });
    gh.done();
  });

  it("the status comment is created, and created again when it was deleted", async () => {
    gh = mockGitHub();
    const MARKER = "<!-- loom:status:doc/plans/PLAN-demo.md -->";
    gh.api.get(COMMENTS).query({ per_page: "100", page: "1" }).reply(200, []);
    gh.api.post(COMMENTS).reply(201, { id: 5 });
    gh.api
      .get(COMMENTS)
      .query({ per_page: "100", page: "1" })
      .reply(200, [{ id: 5, body: `${MARKER}\n…`, user: { login: "loom[bot]", type: "Bot" } }]);
    gh.api.patch("/repos/octo/repo/issues/comments/5").reply(404, { message: "Not Found" });
    gh.api.get(COMMENTS).query({ per_page: "100", page: "1" }).reply(200, []);
    gh.api.post(COMMENTS).reply(201, { id: 6 });
    const ctx = makeContext(makeDiamond(), { cache: undefined });
    await executeEffect(ctx, { type: "syncStatusComment", key: "s" });
    await executeEffect(ctx, { type: "syncStatusComment", key: "s" });
    gh.done();
  });

  it("an artifact is downloaded each time it is read", async () => {
    gh = mockGitHub();
    gh.api
      .get("/repos/octo/repo/actions/artifacts/3/zip")
      .twice()
      .reply(302, "", { location: `${BLOB}/blob/3?sig=x` });
    gh.other(BLOB)
      .get("/blob/3")
      .query(true)
      .twice()
      .reply(200, makeZip({ "a.json": "{}" }), { "content-type": "application/zip" });
    const ctx = makeContext(makeDiamond(), { cache: undefined });
    const artifact = { id: 3, name: "loom-result", sizeInBytes: 10, createdAt: "", expired: false };
    await readArtifactFile(ctx, "t", artifact, "a.json");
    assert.deepEqual(await readArtifactFile(ctx, "t", artifact, "a.json"), { ok: true, text: "{}" });
    gh.done();
  });

  it("a label is created each time it is ensured", async () => {
    gh = mockGitHub();
    gh.api.post(LABELS).twice().reply(201, { id: 1 });
    const effect: Effect = {
      type: "ensureLabel",
      key: "l",
      label: { name: "loom:hold", color: "ededed", description: "hold" },
    };
    const ctx = makeContext(makeDiamond(), { cache: undefined });
    await executeEffect(ctx, effect);
    await executeEffect(ctx, effect);
    gh.done();
  });
});

describe("labels", () => {
  const ensure = (name: string): Effect => ({
    type: "ensureLabel",
    key: `l:${name}`,
    label: { name, color: "ededed", description: name },
  });

  it("two different labels are each created", async () => {
    gh = mockGitHub();
    gh.api.post(LABELS).twice().reply(201, { id: 1 });
    const ctx = makeContext(makeDiamond());
    await executeEffect(ctx, ensure("loom:hold"));
    await executeEffect(ctx, ensure("loom:skip:a"));
    assert.equal(gh.find("POST", LABELS).length, 2);
    gh.done();
  });

  it("a 422 listing already_exists among other errors means the label is there", async () => {
    gh = mockGitHub();
    gh.api.post(LABELS).reply(422, {
      message: "Validation Failed",
      errors: [{ code: "custom" }, { code: "already_exists" }],
    });
    const ctx = makeContext(makeDiamond());
    await executeEffect(ctx, ensure("loom:hold"));
    await executeEffect(ctx, ensure("loom:hold"));
    assert.equal(gh.find("POST", LABELS).length, 1);
    assert.deepEqual(ctx.lines, []);
    gh.done();
  });

  it("already_exists under another status than 422 is not taken for an existing label", async () => {
    gh = mockGitHub();
    gh.api.post(LABELS).reply(400, { message: "Bad", errors: [{ code: "already_exists" }] });
    const ctx = makeContext(makeDiamond());
    await executeEffect(ctx, ensure("loom:hold"));
    assert.equal(ctx.lines[0]?.level, "warn");
    gh.done();
  });
});

describe("small effects' logs and counts", () => {
  it("a delete of a branch already gone (404) is fine; each delete is one counted call, logged with its branch", async () => {
    gh = mockGitHub();
    gh.api.delete("/repos/octo/repo/git/refs/heads%2Floom%2Fa").reply(404, { message: "Not Found" });
    gh.api.delete("/repos/octo/repo/git/refs/heads%2Floom%2Fb").reply(204);
    const ctx = makeContext(makeDiamond());
    assert.deepEqual(await executeEffect(ctx, { type: "deleteBranch", key: "k", branch: "loom/a" }), []);
    await executeEffect(ctx, { type: "deleteBranch", key: "k", branch: "loom/b" });
    assert.equal(ctx.calls?.by.deleteBranch, 2);
    assert.deepEqual(ctx.lines, [
      { level: "info", data: { branch: "loom/b" }, message: "stage branch deleted" },
    ]);
    gh.done();
  });

  it("a cancel is logged with its stage and run", async () => {
    gh = mockGitHub();
    gh.api.post("/repos/octo/repo/actions/runs/55/cancel").reply(202, {});
    const ctx = makeContext(makeDiamond());
    await executeEffect(ctx, { type: "cancelRun", key: "k", stageId: "a", runId: 55 });
    assert.deepEqual(ctx.lines, [
      { level: "info", data: { stage: "a", runId: 55 }, message: "run cancel requested" },
    ]);
    gh.done();
  });

  it("a dispatch's warnings carry the refused status and the key of the run not found yet", async () => {
    gh = mockGitHub();
    const DISPATCH = "/repos/octo/repo/actions/workflows/loom.yml/dispatches";
    gh.api.post(DISPATCH).reply(422, { message: "Unexpected inputs provided" });
    gh.api.post(DISPATCH).reply(204);
    gh.api
      .get("/repos/octo/repo/actions/workflows/loom.yml/runs")
      .query(true)
      .times(4)
      .reply(200, { total_count: 0, workflow_runs: [] });
    const ctx = makeContext(makeDiamond(), { attempt: 1 });
    const effect: Effect = {
      type: "dispatchRun",
      key: "kk:a:1",
      stageId: "a",
      attempt: 1,
      kind: "stage",
      branch: "loom/pr-7/PLAN-demo/a",
      previousRunId: null,
    };
    await executeEffect(ctx, effect);
    assert.deepEqual(
      ctx.lines.map((line) => line.data),
      [{ status: 422 }, { stage: "a", key: "kk:a:1" }],
    );
    gh.done();
  });
});

describe("edges of errors and run identity", () => {
  it("a 403 without rate-limit headers, or without a response at all, is not retryable; nor is a 404 with retry-after", () => {
    assert.equal(toEffectError("x", { status: 403 }).retryable, false);
    assert.equal(toEffectError("x", { status: 403, response: {} }).retryable, false);
    assert.equal(toEffectError("x", { status: 403, response: { headers: {} } }).retryable, false);
    assert.equal(
      toEffectError("x", { status: 404, response: { headers: { "retry-after": "5" } } }).retryable,
      false,
    );
    assert.equal(
      toEffectError("x", { status: 422, response: { headers: { "x-ratelimit-remaining": "0" } } }).retryable,
      false,
    );
  });

  it("a thrown null is written out", () => {
    assert.equal(readErrorMessage(null), "null");
    assert.equal(toEffectError("doing x", null).message, "doing x: network error null");
  });

  it("with loom's login unknown, a run of nobody known is not loom's", () => {
    const run = RunIdentity.parse({
      id: 1,
      display_title: "loom k:a:1",
      event: "workflow_dispatch",
      path: ".github/workflows/loom.yml",
      head_branch: "main",
      created_at: new Date(T0).toISOString(),
      actor: null,
      triggering_actor: null,
    });
    const expected = {
      workflowFile: "loom.yml",
      defaultBranch: "main",
      botLogin: null,
      key: "k:a:1",
      dispatchedAt: T0,
    };
    assert.equal(judgeRunIdentity(run, expected), "it was started by someone unknown, not loom");
  });

  it("a dispatched run found by its key comes with its link and state", async () => {
    gh = mockGitHub();
    gh.api
      .get("/repos/octo/repo/actions/workflows/loom.yml/runs")
      .query(true)
      .reply(200, {
        total_count: 1,
        workflow_runs: [
          {
            id: 12,
            name: "loom",
            display_title: "loom k:a:1",
            html_url: "https://github.com/octo/repo/actions/runs/12",
            status: "completed",
            conclusion: "success",
            event: "workflow_dispatch",
            path: ".github/workflows/loom.yml",
            head_branch: "main",
            created_at: new Date(T0).toISOString(),
            actor: { login: "loom[bot]" },
            triggering_actor: { login: "loom[bot]" },
          },
        ],
      });
    const ctx = makeContext(makeDiamond(), {
      config: { workflowFile: "loom.yml", defaultBranch: "main", botLogin: "loom[bot]" },
    });
    assert.deepEqual(await findDispatchedRun(ctx, "t", "k:a:1", "main", T0), {
      id: 12,
      htmlUrl: "https://github.com/octo/repo/actions/runs/12",
      status: "completed",
      conclusion: "success",
    });
    gh.done();
  });
});
