import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { decideRunOutcome } from "../../app/github/decide-run-outcome.ts";
import type { RunEvidence } from "../../app/github/decide-run-outcome.ts";
import { readLatestHeartbeat } from "../../app/github/read-latest-heartbeat.ts";
import { readRunOutcome, toRunFinishedEvent } from "../../app/github/read-run-outcome.ts";
import type { PublishResult } from "../../src/artifacts/publish-result.ts";
import { mockGitHub } from "../support/github-mock.ts";
import type { GitHubMock } from "../support/github-mock.ts";
import { makeDiamond } from "../status/make-plan-state.ts";
import { makeContext } from "./make-context.ts";
import { BLOB, RESULT, SHA, listedArtifact, makePublished, serveArtifact } from "./run-fixtures.ts";

const result = RESULT;
const published = makePublished();
const refused: PublishResult = {
  ...published,
  ok: false,
  pushed_sha: undefined,
  refusals: [
    {
      rule: "workflow-change",
      path: ".github/workflows/ci.yml",
      detail: "changes under .github/ are not allowed",
    },
  ],
};

let gh: GitHubMock | undefined;
afterEach(() => gh?.cleanup());

function artifact(id: number, name: string, createdAt = "2026-11-21T12:00:00Z") {
  return listedArtifact(id, name, { created_at: createdAt });
}

function completedRun(mock: GitHubMock, artifacts: ReturnType<typeof artifact>[]): void {
  mock.api.get("/repos/octo/repo/actions/runs/9").reply(200, {
    id: 9,
    status: "completed",
    conclusion: "success",
    html_url: "h",
    display_title: "loom a [k]",
  });
  mock.api
    .get("/repos/octo/repo/actions/runs/9/artifacts")
    .query({ per_page: "100" })
    .reply(200, { total_count: artifacts.length, artifacts });
}

test("a finished run whose loom-publish carries the run's result is read with one download (loom-result is not fetched)", async () => {
  gh = mockGitHub();
  completedRun(gh, [artifact(2, "loom-result"), artifact(3, "loom-publish")]);
  const carried = { ...result, cost_usd: 0.31 };
  serveArtifact(gh, 3, {
    "loom-publish.json": JSON.stringify(published),
    "loom-result.json": JSON.stringify(carried),
  });
  const reading = await readRunOutcome(makeContext(makeDiamond()), 9);
  assert.deepEqual(reading.finished, { outcome: "completed", detail: "all 3 acceptance checks passed" });
  assert.equal(reading.result?.cost_usd, 0.31, "the result comes from loom-publish");
  assert.equal(reading.publish?.pushed_sha, SHA);
  assert.equal(gh.find("GET", "/repos/octo/repo/actions/artifacts/2/zip").length, 0);
  assert.equal(gh.find("GET", "/repos/octo/repo/actions/artifacts/3/zip").length, 1, "downloaded once");
  gh.done();
});

test("a loom-publish without the run's result (a workflow before 0.4) is never taken for it: loom-result is read", async () => {
  gh = mockGitHub();
  completedRun(gh, [artifact(2, "loom-result"), artifact(3, "loom-publish")]);
  serveArtifact(gh, 2, { "loom-result.json": JSON.stringify(result) });
  serveArtifact(gh, 3, { "loom-publish.json": JSON.stringify(published) });
  const reading = await readRunOutcome(makeContext(makeDiamond()), 9);
  assert.equal(reading.result?.cost_usd, 0.42);
  assert.equal(reading.publish?.pushed_sha, SHA);
  assert.deepEqual(reading.problems, []);
  gh.done();
});

test("a finished run is read with its newest loom-result (following the 302) and loom-publish", async () => {
  gh = mockGitHub();
  gh.api.get("/repos/octo/repo/actions/runs/9").reply(200, {
    id: 9,
    status: "completed",
    conclusion: "success",
    html_url: "h",
    display_title: "loom a [k]",
  });
  gh.api
    .get("/repos/octo/repo/actions/runs/9/artifacts")
    .query({ per_page: "100" })
    .reply(200, {
      total_count: 4,
      artifacts: [
        artifact(1, "loom-result", "2026-11-21T12:00:00Z"),
        artifact(2, "loom-result", "2026-11-21T12:01:00Z"),
        artifact(3, "loom-publish"),
        artifact(4, "loom-heartbeat-1"),
      ],
    });
  serveArtifact(gh, 2, { "loom-result.json": JSON.stringify(result) });
  serveArtifact(gh, 3, { "loom-publish.json": JSON.stringify(published) });
  const ctx = makeContext(makeDiamond());
  const reading = await readRunOutcome(ctx, 9);
  assert.deepEqual(reading.finished, { outcome: "completed", detail: "all 3 acceptance checks passed" });
  assert.equal(reading.result?.cost_usd, 0.42);
  const finished = toRunFinishedEvent(reading, { stageId: "a", attempt: 1, at: 5 });
  assert.ok(finished?.type === "run.finished" && finished.report, "the session's report comes along");
  const { report, ...event } = finished;
  // Claude Code's own numbers from loom-result, never the App's estimate.
  assert.equal(report.usage.costUsd, 0.42);
  assert.equal(report.usage.turns, result.turns);
  assert.equal(report.usage.outputTokens, result.tokens.output);
  assert.deepEqual(event, {
    type: "run.finished",
    at: 5,
    stageId: "a",
    attempt: 1,
    runId: 9,
    outcome: "completed",
    detail: "all 3 acceptance checks passed",
    // The commit the checks ran on, which publish pushed: what loom will merge.
    headSha: SHA,
  });
  const other = toRunFinishedEvent(reading, { stageId: "a", attempt: 2, at: 5 });
  assert.equal(other?.type === "run.finished" && other.outcome, "crashed");
  assert.equal(
    other?.type === "run.finished" && other.report,
    undefined,
    "another attempt's numbers are not taken",
  );
  assert.equal(ctx.calls?.by.readRunOutcome, 4);
  const downloads = gh.requests.filter((r) => r.origin === BLOB);
  assert.equal(downloads.length, 2);
  assert.ok(
    downloads.every((r) => r.headers.authorization === undefined),
    "the token never goes to the download host",
  );
  gh.done();
});

test("a run still in progress reads no artifacts and has not finished; an unchanged one costs a free 304", async () => {
  gh = mockGitHub();
  const run = { id: 10, status: "in_progress", conclusion: null, html_url: "h", display_title: "t" };
  gh.api.get("/repos/octo/repo/actions/runs/10").reply(200, run, { etag: '"r1"' });
  gh.api.get("/repos/octo/repo/actions/runs/10").matchHeader("if-none-match", '"r1"').reply(304, "");
  const ctx = makeContext(makeDiamond());
  assert.equal((await readRunOutcome(ctx, 10)).finished, null);
  const again = await readRunOutcome(ctx, 10);
  assert.equal(again.status, "in_progress");
  assert.equal(ctx.calls?.notModified, 1);
  gh.done();
});

test("the newest heartbeat is the highest loom-heartbeat-<n>, downloaded once", async () => {
  gh = mockGitHub();
  const list = {
    total_count: 3,
    artifacts: [
      artifact(21, "loom-heartbeat-2"),
      artifact(30, "loom-heartbeat-10"),
      artifact(25, "loom-heartbeat-9"),
    ],
  };
  gh.api
    .get("/repos/octo/repo/actions/runs/11/artifacts")
    .query({ per_page: "100" })
    .twice()
    .reply(200, list);
  const heartbeat = {
    stage_id: "a",
    session_id: "s",
    attempt: 1,
    timestamp: "2026-11-21T12:03:00Z",
    context_percent: 55,
    last_tool: "Edit",
    activity: "Edit src/a.ts",
    turns: 9,
    cost_usd: 0.3,
  };
  serveArtifact(gh, 30, { "heartbeat.json": JSON.stringify(heartbeat) });
  const ctx = makeContext(makeDiamond());
  const first = await readLatestHeartbeat(ctx, 11);
  assert.deepEqual(first?.ok && first.heartbeat, {
    timestamp: Date.UTC(2026, 10, 21, 12, 3),
    contextPercent: 55,
    lastTool: "Edit",
    activity: "Edit src/a.ts",
    turns: 9,
    costUsd: 0.3,
  });
  assert.equal(first?.ok && first.sequence, 10);
  await readLatestHeartbeat(ctx, 11);
  assert.equal(gh.find("GET", "/repos/octo/repo/actions/artifacts/30/zip").length, 1);
  gh.done();
});

test("a run without heartbeats yet has none", async () => {
  gh = mockGitHub();
  gh.api
    .get("/repos/octo/repo/actions/runs/12/artifacts")
    .query({ per_page: "100" })
    .reply(200, { total_count: 0, artifacts: [] });
  assert.equal(await readLatestHeartbeat(makeContext(makeDiamond()), 12), null);
  gh.done();
});

const evidence = (over: Partial<RunEvidence>): RunEvidence => ({
  status: "completed",
  conclusion: "success",
  result,
  publish: published,
  problems: [],
  ...over,
});

const outcomeCases: { name: string; evidence: RunEvidence; outcome: string | null; detail?: RegExp }[] = [
  { name: "a run still going", evidence: evidence({ status: "in_progress" }), outcome: null },
  { name: "a completed and published session", evidence: evidence({}), outcome: "completed" },
  {
    name: "no loom-result and a failure",
    evidence: evidence({ conclusion: "failure", result: null, publish: null }),
    outcome: "crashed",
    detail: /without a loom-result/,
  },
  {
    name: "an unreadable loom-result",
    evidence: evidence({ conclusion: "failure", result: null, problems: ["loom-result: not JSON"] }),
    outcome: "crashed",
    detail: /not JSON/,
  },
  {
    name: "a completed session whose publish was refused",
    evidence: evidence({ conclusion: "failure", publish: refused }),
    outcome: "completed-with-failures",
    detail: /workflow-change \(\.github\/workflows\/ci\.yml\)/,
  },
  {
    name: "a completed session whose publish job died",
    evidence: evidence({ conclusion: "failure", publish: null }),
    outcome: "crashed",
    detail: /not published/,
  },
  { name: "a cancelled run", evidence: evidence({ conclusion: "cancelled" }), outcome: "cancelled" },
  {
    name: "a timed-out run",
    evidence: evidence({ conclusion: "timed_out", result: null }),
    outcome: "timed-out",
  },
  {
    name: "a session that needs a handoff",
    evidence: evidence({ result: { ...result, outcome: "needs-handoff", reason: "context 92%" } }),
    outcome: "needs-handoff",
    detail: /context 92%/,
  },
  {
    name: "failed acceptance",
    evidence: evidence({
      conclusion: "failure",
      result: { ...result, outcome: "completed-with-failures", reason: "2 checks failed" },
    }),
    outcome: "completed-with-failures",
    detail: /2 checks failed/,
  },
];

for (const c of outcomeCases) {
  test(`${c.name} ends as ${c.outcome ?? "nothing yet"}`, () => {
    const decided = decideRunOutcome(c.evidence);
    assert.equal(decided?.outcome ?? null, c.outcome);
    if (c.detail) assert.match(decided?.detail ?? "", c.detail);
  });
}
