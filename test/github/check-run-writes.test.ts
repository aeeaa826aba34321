import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { executeEffect } from "../../app/github/execute-effect.ts";
import { createGitHubCache } from "../../app/github/github-cache.ts";
import { getPlanIdFromPath, publishPlanErrors } from "../../app/github/publish-plan-errors.ts";
import { formatCheckRunExternalId } from "../../src/status/check-run-external-id.ts";
import { mockGitHub } from "../support/github-mock.ts";
import type { GitHubMock } from "../support/github-mock.ts";
import { HEAD_SHA, makeDiamond, makeSession, T0 } from "../status/make-plan-state.ts";
import { makeContext } from "./make-context.ts";

/*
 * Check runs as GitHub shows them: the invalid plan's failing run, which run loom updates, what it
 * writes (links, times, superseded runs on old heads) and what it does when GitHub fails.
 */

const LIST = `/repos/octo/repo/commits/${HEAD_SHA}/check-runs`;
const CHECK_RUNS = "/repos/octo/repo/check-runs";
const OLD_SHA = "0".repeat(40);
const NOW_ISO = new Date(T0 + 600_000).toISOString();
const externalA = formatCheckRunExternalId("doc/plans/PLAN-demo.md", "a");
const externalBad = formatCheckRunExternalId("doc/plans/PLAN-bad.md", null);
const listQuery = (name: string) => ({ check_name: name, filter: "all", per_page: "100" });
const sync = (stageId: string | null) => ({ type: "syncCheckRun", key: `k:${stageId}`, stageId }) as const;
const executing = () => makeDiamond({ a: { status: "executing", attempt: 1, sessions: [makeSession()] } });

function checkRun(
  id: number,
  status: string,
  external_id: string,
  conclusion: string | null = null,
  title = "t",
) {
  return { id, status, conclusion, external_id, output: { title } };
}

let gh: GitHubMock | undefined;
afterEach(() => gh?.cleanup());

describe("an invalid plan's check run", () => {
  const errors = [
    { message: "stage b depends on a missing stage", line: 12, column: 7, stage: "b" },
    { message: "no stages", line: 3, column: 1 },
  ];
  const warnings = [{ message: "vague description", line: 20, column: 2 }];

  it("fails with every error and warning in its summary and annotations", async () => {
    gh = mockGitHub();
    gh.api.get(LIST).query(listQuery("loom: PLAN-bad")).reply(200, { total_count: 0, check_runs: [] });
    gh.api.post(CHECK_RUNS).reply(201, { id: 50 });
    const ctx = makeContext(makeDiamond());
    const id = await publishPlanErrors(ctx, {
      headSha: HEAD_SHA,
      planPath: "doc/plans/PLAN-bad.md",
      errors,
      warnings,
    });
    assert.equal(id, 50);
    const created = gh.find("POST", CHECK_RUNS)[0]?.body as {
      name: string;
      head_sha: string;
      external_id: string;
      status: string;
      conclusion: string;
      completed_at: string;
      output: {
        title: string;
        summary: string;
        annotations: { annotation_level: string; start_line: number }[];
      };
    };
    assert.equal(created.name, "loom: PLAN-bad");
    assert.equal(created.head_sha, HEAD_SHA);
    assert.equal(created.external_id, externalBad);
    assert.deepEqual(
      [created.status, created.conclusion, created.completed_at],
      ["completed", "failure", NOW_ISO],
    );
    assert.equal(created.output.title, "Invalid plan");
    assert.equal(
      created.output.summary,
      [
        "`doc/plans/PLAN-bad.md` is not a valid loom plan: nothing runs until it is fixed.",
        "",
        "- line 12:7 (stage `b`): stage b depends on a missing stage",
        "- line 3:1: no stages",
        "",
        "Warnings:",
        "- line 20: vague description",
      ].join("\n"),
    );
    assert.deepEqual(
      created.output.annotations.map((a) => [a.annotation_level, a.start_line]),
      [
        ["failure", 12],
        ["failure", 3],
        ["warning", 20],
      ],
    );
    assert.equal(ctx.calls?.by.publishPlanErrors, 2);
    gh.done();
  });

  it("a plan without warnings has no warnings section", async () => {
    gh = mockGitHub();
    gh.api.get(LIST).query(listQuery("loom: PLAN-bad")).reply(200, { total_count: 0, check_runs: [] });
    gh.api.post(CHECK_RUNS).reply(201, { id: 51 });
    await publishPlanErrors(makeContext(makeDiamond()), {
      headSha: HEAD_SHA,
      planPath: "doc/plans/PLAN-bad.md",
      errors,
      warnings: [],
    });
    const summary = (gh.find("POST", CHECK_RUNS)[0]?.body as { output: { summary: string } }).output.summary;
    assert.ok(!summary.includes("Warnings:"), summary);
    gh.done();
  });

  it("a plan check that already failed as an invalid plan on this commit is left as it is", async () => {
    gh = mockGitHub();
    gh.api
      .get(LIST)
      .query(listQuery("loom: PLAN-bad"))
      .reply(200, {
        total_count: 1,
        check_runs: [checkRun(77, "completed", externalBad, "failure", "Invalid plan")],
      });
    const id = await publishPlanErrors(makeContext(makeDiamond()), {
      headSha: HEAD_SHA,
      planPath: "doc/plans/PLAN-bad.md",
      errors,
    });
    assert.equal(id, 77);
    assert.equal(gh.find("POST", CHECK_RUNS).length, 0);
    gh.done();
  });

  for (const c of [
    { what: "still running", run: checkRun(78, "in_progress", externalBad, null, "Invalid plan") },
    { what: "completed otherwise", run: checkRun(78, "completed", externalBad, "success", "Invalid plan") },
    {
      what: "failed for another reason",
      run: checkRun(78, "completed", externalBad, "failure", "2 stages failed"),
    },
  ])
    it(`a plan check on this commit ${c.what} gets a new failing run`, async () => {
      gh = mockGitHub();
      gh.api
        .get(LIST)
        .query(listQuery("loom: PLAN-bad"))
        .reply(200, { total_count: 1, check_runs: [c.run] });
      gh.api.post(CHECK_RUNS).reply(201, { id: 79 });
      const id = await publishPlanErrors(makeContext(makeDiamond()), {
        headSha: HEAD_SHA,
        planPath: "doc/plans/PLAN-bad.md",
        errors,
      });
      assert.equal(id, 79);
      gh.done();
    });

  it("publishes 500 annotations at most, 50 a request", async () => {
    gh = mockGitHub();
    const many = Array.from({ length: 520 }, (_, i) => ({ message: `problem ${i}`, line: i + 1, column: 1 }));
    gh.api.get(LIST).query(listQuery("loom: PLAN-bad")).reply(200, { total_count: 0, check_runs: [] });
    gh.api.post(CHECK_RUNS).reply(201, { id: 52 });
    gh.api.patch(`${CHECK_RUNS}/52`).times(9).reply(200, { id: 52 });
    await publishPlanErrors(makeContext(makeDiamond()), {
      headSha: HEAD_SHA,
      planPath: "doc/plans/PLAN-bad.md",
      errors: many,
    });
    const last = gh.find("PATCH", `${CHECK_RUNS}/52`).at(-1)?.body as {
      output: { title: string; annotations: { message: string }[] };
    };
    assert.equal(last.output.title, "Invalid plan");
    assert.equal(last.output.annotations.at(-1)?.message, "problem 499");
    gh.done();
  });

  it("a look-up or a write GitHub cannot do now is tried again, saying which plan", async () => {
    gh = mockGitHub();
    gh.api.get(LIST).query(listQuery("loom: PLAN-bad")).reply(502, { message: "Bad Gateway" });
    const input = { headSha: HEAD_SHA, planPath: "doc/plans/PLAN-bad.md", errors };
    await assert.rejects(publishPlanErrors(makeContext(makeDiamond()), input), {
      retryable: true,
      message: "looking up check run loom: PLAN-bad: 502 Bad Gateway",
    });
    gh.api.get(LIST).query(listQuery("loom: PLAN-bad")).reply(200, { total_count: 0, check_runs: [] });
    gh.api.post(CHECK_RUNS).reply(500, { message: "Server Error" });
    await assert.rejects(publishPlanErrors(makeContext(makeDiamond()), input), {
      retryable: true,
      message: "publishing errors of doc/plans/PLAN-bad.md: 500 Server Error",
    });
    gh.done();
  });

  it("is named after the plan file's stem", () => {
    assert.equal(getPlanIdFromPath("doc/plans/PLAN-auth.md"), "PLAN-auth");
    assert.equal(getPlanIdFromPath("PLAN-x.MD"), "PLAN-x");
    assert.equal(getPlanIdFromPath("a/b/PLAN-y.md.txt"), "PLAN-y.md.txt");
  });
});

describe("a stage's check run", () => {
  it("the newest of loom's runs on the commit is the one updated", async () => {
    gh = mockGitHub();
    gh.api
      .get(LIST)
      .query(listQuery("loom: a"))
      .reply(200, {
        total_count: 3,
        check_runs: [
          checkRun(20, "in_progress", externalA),
          checkRun(24, "in_progress", externalA),
          checkRun(22, "in_progress", externalA),
        ],
      });
    gh.api.patch(`${CHECK_RUNS}/24`).reply(200, { id: 24 });
    await executeEffect(makeContext(executing(), { cache: undefined }), sync("a"));
    gh.done();
  });

  it("is created with its start time while running, and links to the pull request before any run", async () => {
    gh = mockGitHub();
    gh.api.get(LIST).query(listQuery("loom: a")).reply(200, { total_count: 0, check_runs: [] });
    gh.api.post(CHECK_RUNS).reply(201, { id: 30 });
    gh.api.get(LIST).query(listQuery("loom: b")).reply(200, { total_count: 0, check_runs: [] });
    gh.api.post(CHECK_RUNS).reply(201, { id: 31 });
    const ctx = makeContext(executing(), {
      config: { workflowFile: "loom.yml", serverUrl: "https://ghe.acme.com" },
    });
    await executeEffect(ctx, sync("a"));
    await executeEffect(ctx, sync("b"));
    const [running, waiting] = gh.find("POST", CHECK_RUNS).map((r) => r.body as Record<string, unknown>);
    assert.equal(running?.["started_at"], NOW_ISO);
    assert.equal(running?.["details_url"], "https://ghe.acme.com/octo/repo/actions/runs/1001");
    assert.equal(running?.["completed_at"], undefined);
    assert.equal(waiting?.["started_at"], undefined);
    assert.equal(waiting?.["details_url"], "https://ghe.acme.com/octo/repo/pull/7");
    gh.done();
  });

  it("a run deleted on GitHub (404 on update) is created anew on the head", async () => {
    gh = mockGitHub();
    gh.api
      .get(LIST)
      .query(listQuery("loom: a"))
      .reply(200, { total_count: 1, check_runs: [checkRun(40, "in_progress", externalA)] });
    gh.api.patch(`${CHECK_RUNS}/40`).reply(404, { message: "Not Found" });
    gh.api.post(CHECK_RUNS).reply(201, { id: 41 });
    const cache = createGitHubCache();
    const ctx = makeContext(executing(), { cache });
    const events = await executeEffect(ctx, sync("a"));
    assert.deepEqual(events, [
      { type: "checkRun.created", at: T0 + 600_000, stageId: "a", headSha: HEAD_SHA, checkRunId: 41 },
    ]);
    assert.equal(cache.ids.get(`check:octo/repo@${HEAD_SHA}#${externalA}`), 41);
    gh.done();
  });

  it("an update or create GitHub cannot do now is tried again, naming the check", async () => {
    gh = mockGitHub();
    gh.api
      .get(LIST)
      .query(listQuery("loom: a"))
      .reply(200, { total_count: 1, check_runs: [checkRun(40, "in_progress", externalA)] });
    gh.api.patch(`${CHECK_RUNS}/40`).reply(500, { message: "Server Error" });
    await assert.rejects(executeEffect(makeContext(executing()), sync("a")), {
      retryable: true,
      message: "updating check run loom: a: 500 Server Error",
    });
    assert.equal(gh.find("POST", CHECK_RUNS).length, 0, "a failed update never becomes a second run");
    gh.api.get(LIST).query(listQuery("loom: a")).reply(200, { total_count: 0, check_runs: [] });
    gh.api.post(CHECK_RUNS).reply(503, { message: "Unavailable" });
    await assert.rejects(executeEffect(makeContext(executing()), sync("a")), {
      retryable: true,
      message: "creating check run loom: a: 503 Unavailable",
    });
    gh.done();
  });

  it("a completed run is written with its end time once, not again when only the time would change", async () => {
    gh = mockGitHub();
    const done = makeDiamond({
      a: { status: "completed", merged: true, attempt: 1, sessions: [makeSession({ status: "completed" })] },
    });
    gh.api
      .get(LIST)
      .query(listQuery("loom: a"))
      .reply(200, { total_count: 1, check_runs: [checkRun(45, "in_progress", externalA)] });
    gh.api.patch(`${CHECK_RUNS}/45`).reply(200, { id: 45 });
    const ctx = makeContext(done);
    await executeEffect(ctx, sync("a"));
    const written = gh.find("PATCH", `${CHECK_RUNS}/45`)[0]?.body as Record<string, unknown>;
    assert.deepEqual(
      [written["status"], written["conclusion"], written["completed_at"]],
      ["completed", "success", NOW_ISO],
    );
    // Later, another clock: the payload differs only by its time, so nothing is written.
    ctx.now = () => T0 + 900_000;
    await executeEffect(ctx, sync("a"));
    assert.equal(gh.requests.length, 2);
    gh.done();
  });
});

describe("links in check runs and the status comment", () => {
  const recorded = () => ({ ...executing(), checkRuns: { a: { headSha: HEAD_SHA, id: 555 } } });
  const ghe = { workflowFile: "loom.yml", serverUrl: "https://ghe.acme.com" };

  it("a stage's check run links to its Actions run; the plan's to each stage's check run, on the server loom runs against", async () => {
    gh = mockGitHub();
    // The plan's check run has no record: every run the plan created is recorded, so none exists.
    gh.api.post(CHECK_RUNS).reply(201, { id: 556 });
    gh.api.patch(`${CHECK_RUNS}/555`).reply(200, { id: 555 });
    const cache = createGitHubCache();
    cache.written.set("check:555", JSON.stringify({ status: "queued" }));
    const ctx = makeContext(recorded(), { cache, config: ghe });
    await executeEffect(ctx, sync("a"));
    await executeEffect(ctx, sync(null));
    const stage = JSON.stringify(gh.find("PATCH", `${CHECK_RUNS}/555`)[0]?.body);
    assert.ok(stage.includes("https://ghe.acme.com/octo/repo/actions/runs/1001"), stage);
    const plan = JSON.stringify(gh.find("POST", CHECK_RUNS)[0]?.body);
    assert.ok(plan.includes("https://ghe.acme.com/octo/repo/runs/555"), plan);
    gh.done();
  });

  it("the status comment links to each stage's check run", async () => {
    gh = mockGitHub();
    const COMMENTS = "/repos/octo/repo/issues/7/comments";
    gh.api.get(COMMENTS).query({ per_page: "100", page: "1" }).reply(200, []);
    gh.api.post(COMMENTS).reply(201, { id: 1 });
    await executeEffect(makeContext(recorded(), { config: ghe }), { type: "syncStatusComment", key: "s" });
    const body = (gh.find("POST", COMMENTS)[0]?.body as { body: string }).body;
    assert.ok(body.includes("https://ghe.acme.com/octo/repo/runs/555"), body);
    gh.done();
  });
});

describe("the run an older head still shows", () => {
  const state = () => ({ ...executing(), checkRuns: { a: { headSha: OLD_SHA, id: 80 } } });

  it("is left alone when GitHub says it is completed already", async () => {
    gh = mockGitHub();
    gh.api.post(CHECK_RUNS).reply(201, { id: 81 });
    gh.api.get(`${CHECK_RUNS}/80`).reply(200, checkRun(80, "completed", externalA, "failure"));
    await executeEffect(makeContext(state()), sync("a"));
    assert.equal(gh.find("PATCH", `${CHECK_RUNS}/80`).length, 0);
    gh.done();
  });

  it("is left alone without asking when loom completed it itself", async () => {
    gh = mockGitHub();
    gh.api.post(CHECK_RUNS).reply(201, { id: 81 });
    const cache = createGitHubCache();
    cache.written.set("check:80", JSON.stringify({ status: "completed" }));
    await executeEffect(makeContext(state(), { cache }), sync("a"));
    assert.equal(gh.requests.length, 1);
    gh.done();
  });

  it("is completed as superseded without asking when loom last wrote it running, then remembered as completed", async () => {
    gh = mockGitHub();
    gh.api.post(CHECK_RUNS).reply(201, { id: 81 });
    gh.api.patch(`${CHECK_RUNS}/80`).reply(200, { id: 80 });
    const cache = createGitHubCache();
    cache.written.set("check:80", JSON.stringify({ status: "in_progress" }));
    await executeEffect(makeContext(state(), { cache }), sync("a"));
    const body = gh.find("PATCH", `${CHECK_RUNS}/80`)[0]?.body as Record<string, unknown>;
    assert.equal(body["completed_at"], NOW_ISO);
    assert.equal(
      (body["output"] as { summary: string }).summary,
      "This commit is no longer the pull request's head, so loom stopped updating this check run. " +
        `The current \`loom: a\` is on [\`aaaaaaa\`](https://github.com/octo/repo/commit/${HEAD_SHA}).`,
    );
    assert.equal(gh.find("GET", `${CHECK_RUNS}/80`).length, 0);
    assert.equal(JSON.parse(cache.written.get("check:80") ?? "{}").status, "completed");
    gh.done();
  });

  it("a run gone from GitHub (404) is fine; another failure is tried again, before anything is written on the new head", async () => {
    gh = mockGitHub();
    gh.api.post(CHECK_RUNS).reply(201, { id: 81 });
    gh.api.get(`${CHECK_RUNS}/80`).reply(404, { message: "Not Found" });
    await executeEffect(makeContext(state()), sync("a"));
    gh.api.get(`${CHECK_RUNS}/80`).reply(200, checkRun(80, "in_progress", externalA));
    gh.api.patch(`${CHECK_RUNS}/80`).reply(502, { message: "Bad Gateway" });
    await assert.rejects(executeEffect(makeContext(state()), sync("a")), {
      retryable: true,
      message: "completing superseded check run loom: a: 502 Bad Gateway",
    });
    // No run on the new head yet: a retry (or a newer sync) cannot leave one nobody recorded.
    assert.equal(gh.find("POST", CHECK_RUNS).length, 1);
    gh.done();
  });

  it("a stage that failed is shown on the new head, where a person will look", async () => {
    gh = mockGitHub();
    gh.api.post(CHECK_RUNS).reply(201, { id: 83 });
    gh.api.get(`${CHECK_RUNS}/80`).reply(200, checkRun(80, "completed", externalA, "failure"));
    const failed = makeDiamond({
      a: {
        status: "completed-with-failures",
        attempt: 1,
        sessions: [makeSession({ status: "completed" })],
      },
    });
    const ctx = makeContext({ ...failed, checkRuns: { a: { headSha: OLD_SHA, id: 80 } } });
    const events = await executeEffect(ctx, sync("a"));
    assert.deepEqual(events, [
      { type: "checkRun.created", at: T0 + 600_000, stageId: "a", headSha: HEAD_SHA, checkRunId: 83 },
    ]);
    const created = gh.find("POST", CHECK_RUNS)[0]?.body as Record<string, unknown>;
    assert.equal(created["conclusion"], "failure");
    gh.done();
  });

  it("the plan's check run always follows the head", async () => {
    gh = mockGitHub();
    gh.api.post(CHECK_RUNS).reply(201, { id: 84 });
    gh.api.get(`${CHECK_RUNS}/70`).reply(200, checkRun(70, "completed", "x", "success"));
    const ctx = makeContext({ ...makeDiamond(), checkRuns: { "@plan": { headSha: OLD_SHA, id: 70 } } });
    const events = await executeEffect(ctx, sync(null));
    assert.equal((events[0] as { headSha?: string }).headSha, HEAD_SHA);
    gh.done();
  });

  for (const c of [
    {
      what: "a skipped stage",
      stage: { status: "skipped" as const, attempt: 0 },
      closed: false,
      conclusion: "skipped",
    },
    {
      what: "a waiting stage",
      stage: { status: "queued" as const, attempt: 0 },
      closed: false,
      conclusion: undefined,
    },
    {
      what: "a stage cancelled with its closed pull request",
      stage: { status: "executing" as const, attempt: 1, sessions: [makeSession()] },
      closed: true,
      conclusion: "cancelled",
    },
  ])
    it(`${c.what} is written in place on the head its run is on`, async () => {
      gh = mockGitHub();
      gh.api.patch(`${CHECK_RUNS}/90`).reply(200, { id: 90 });
      const cache = createGitHubCache();
      cache.written.set("check:90", JSON.stringify({ status: "in_progress" }));
      const state = {
        ...makeDiamond({ a: c.stage }),
        closed: c.closed,
        checkRuns: { a: { headSha: OLD_SHA, id: 90 } },
      };
      const events = await executeEffect(makeContext(state, { cache }), sync("a"));
      assert.deepEqual(events, []);
      assert.equal(gh.requests.length, 1, "only the update of the recorded run");
      assert.equal((gh.requests[0]?.body as { conclusion?: string }).conclusion, c.conclusion);
      gh.done();
    });

  it("a recorded run whose last write loom does not remember is looked up, to know whether it was completed", async () => {
    gh = mockGitHub();
    gh.api
      .get(LIST)
      .query(listQuery("loom: a"))
      .reply(200, { total_count: 1, check_runs: [checkRun(95, "completed", externalA, "failure")] });
    gh.api.post(CHECK_RUNS).reply(201, { id: 96 });
    const state = { ...executing(), checkRuns: { a: { headSha: HEAD_SHA, id: 95 } } };
    const events = await executeEffect(makeContext(state), sync("a"));
    // It was completed (a failed attempt): the retry's run is created anew, so its buttons show.
    assert.deepEqual(events, [
      { type: "checkRun.created", at: T0 + 600_000, stageId: "a", headSha: HEAD_SHA, checkRunId: 96 },
    ]);
    gh.done();
  });
});
