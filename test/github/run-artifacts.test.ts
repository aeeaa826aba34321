import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { z } from "zod";
import { decideRunOutcome } from "../../app/github/decide-run-outcome.ts";
import type { RunEvidence } from "../../app/github/decide-run-outcome.ts";
import {
  findLatestHeartbeatArtifact,
  hasLiveHeartbeats,
  readLatestHeartbeat,
} from "../../app/github/read-latest-heartbeat.ts";
import { readRunOutcome, toRunFinishedEvent } from "../../app/github/read-run-outcome.ts";
import type { RunReading } from "../../app/github/read-run-outcome.ts";
import {
  findNewestArtifact,
  listRunArtifacts,
  parseArtifactJson,
  readArtifactFile,
} from "../../app/github/run-artifacts.ts";
import type { RunArtifact } from "../../app/github/run-artifacts.ts";
import type { PublishResult } from "../../src/artifacts/publish-result.ts";
import { mockGitHub } from "../support/github-mock.ts";
import type { GitHubMock } from "../support/github-mock.ts";
import { makeDiamond } from "../status/make-plan-state.ts";
import { makeContext } from "./make-context.ts";
import { makeZip } from "./make-zip.ts";
import { BLOB, RESULT, SHA, listedArtifact, makePublished, serveArtifact, serveZip } from "./run-fixtures.ts";

const ARTIFACTS = "/repos/octo/repo/actions/runs/9/artifacts";
const result = RESULT;
const published = makePublished("1".repeat(40));

let gh: GitHubMock | undefined;
afterEach(() => gh?.cleanup());

function artifact(id: number, name: string, fields: Partial<RunArtifact> = {}): RunArtifact {
  return { id, name, sizeInBytes: 200, createdAt: "2026-11-21T12:00:00Z", expired: false, ...fields };
}

function listArtifacts(mock: GitHubMock, artifacts: ReturnType<typeof listedArtifact>[]) {
  mock.api.get(ARTIFACTS).query({ per_page: "100" }).reply(200, { total_count: artifacts.length, artifacts });
}

function completedRun(mock: GitHubMock, conclusion = "success") {
  mock.api.get("/repos/octo/repo/actions/runs/9").reply(200, {
    id: 9,
    status: "completed",
    conclusion,
    html_url: "https://github.com/octo/repo/actions/runs/9",
    display_title: "loom a [k]",
  });
}

describe("a run's artifacts", () => {
  it("lists the run's artifacts without the expired ones", async () => {
    gh = mockGitHub();
    listArtifacts(gh, [
      listedArtifact(1, "loom-result", { size_in_bytes: 321, created_at: "2026-11-21T12:05:00Z" }),
      listedArtifact(2, "loom-publish", { expired: true }),
      listedArtifact(3, "loom-heartbeat-1", { created_at: null }),
    ]);
    const ctx = makeContext(makeDiamond());
    assert.deepEqual(await listRunArtifacts(ctx, "test", 9), [
      { id: 1, name: "loom-result", sizeInBytes: 321, createdAt: "2026-11-21T12:05:00Z", expired: false },
      { id: 3, name: "loom-heartbeat-1", sizeInBytes: 200, createdAt: "", expired: false },
    ]);
    assert.equal(ctx.calls?.by.test, 1);
    gh.done();
  });

  it("a list GitHub cannot give now is a retryable error; one that is not there is not", async () => {
    gh = mockGitHub();
    gh.api.get(ARTIFACTS).query(true).reply(503, { message: "Unavailable" });
    gh.api.get(ARTIFACTS).query(true).reply(404, { message: "Not Found" });
    const ctx = makeContext(makeDiamond());
    await assert.rejects(listRunArtifacts(ctx, "test", 9), {
      retryable: true,
      message: "listing artifacts of run 9: 503 Unavailable",
    });
    await assert.rejects(listRunArtifacts(ctx, "test", 9), { retryable: false, status: 404 });
    gh.done();
  });

  it("the newest of same-named artifacts is taken (then the highest id); other names never", () => {
    const artifacts = [
      artifact(5, "loom-result", { createdAt: "2026-11-21T12:01:00Z" }),
      artifact(9, "loom-result", { createdAt: "2026-11-21T12:00:00Z" }),
      artifact(7, "loom-result", { createdAt: "2026-11-21T12:01:00Z" }),
      artifact(8, "loom-result-2", { createdAt: "2026-11-21T13:00:00Z" }),
      artifact(6, "x-loom-result", { createdAt: "2026-11-21T13:00:00Z" }),
    ];
    assert.equal(findNewestArtifact(artifacts, "loom-result")?.id, 7);
    assert.equal(findNewestArtifact(artifacts.slice(0, 2), "loom-result")?.id, 5);
    assert.equal(findNewestArtifact(artifacts, "loom-publish"), null);
  });

  it("reads the named file; without it, the only .json file; never another one when the name must match", async () => {
    gh = mockGitHub();
    serveArtifact(gh, 40, { "notes.txt": "x", "other.json": '{"a":1}' });
    serveArtifact(gh, 41, { "one.json": "{}", "two.json": "{}" });
    const ctx = makeContext(makeDiamond());
    const single = artifact(40, "loom-result");
    assert.deepEqual(await readArtifactFile(ctx, "test", single, "loom-result.json"), {
      ok: true,
      text: '{"a":1}',
    });
    assert.deepEqual(await readArtifactFile(ctx, "test", single, "notes.txt"), { ok: true, text: "x" });
    assert.deepEqual(await readArtifactFile(ctx, "test", single, "loom-result.json", { exact: true }), {
      ok: false,
      reason: "loom-result holds no loom-result.json",
    });
    assert.deepEqual(await readArtifactFile(ctx, "test", artifact(41, "loom-result"), "loom-result.json"), {
      ok: false,
      reason: "loom-result holds no loom-result.json",
    });
    // Each artifact was downloaded once, whatever was read from it.
    assert.equal(ctx.calls?.by.test, 2);
    assert.equal(gh.find("GET", "/repos/octo/repo/actions/artifacts/40/zip").length, 1);
    gh.done();
  });

  it("an artifact over 16 MiB is not downloaded", async () => {
    gh = mockGitHub();
    const ctx = makeContext(makeDiamond());
    const big = artifact(42, "loom-result", { sizeInBytes: 16 * 1024 * 1024 + 1 });
    assert.deepEqual(await readArtifactFile(ctx, "test", big, "loom-result.json"), {
      ok: false,
      reason: `loom-result is too large (${16 * 1024 * 1024 + 1} bytes)`,
    });
    assert.equal(gh.requests.length, 0);
    serveArtifact(gh, 43, { "loom-result.json": "{}" });
    const atLimit = artifact(43, "loom-result", { sizeInBytes: 16 * 1024 * 1024 });
    assert.deepEqual(await readArtifactFile(ctx, "test", atLimit, "loom-result.json"), {
      ok: true,
      text: "{}",
    });
    gh.done();
  });

  it("an expired artifact (410) is a reason, a download GitHub cannot give now a retryable error", async () => {
    gh = mockGitHub();
    gh.api.get("/repos/octo/repo/actions/artifacts/44/zip").reply(410, { message: "Gone" });
    gh.api.get("/repos/octo/repo/actions/artifacts/45/zip").reply(500, { message: "Server Error" });
    gh.api.get("/repos/octo/repo/actions/artifacts/46/zip").reply(403, { message: "Forbidden" });
    const ctx = makeContext(makeDiamond());
    assert.deepEqual(await readArtifactFile(ctx, "test", artifact(44, "loom-result"), "loom-result.json"), {
      ok: false,
      reason: "loom-result has expired",
    });
    await assert.rejects(readArtifactFile(ctx, "test", artifact(45, "loom-publish"), "x.json"), {
      retryable: true,
      message: "downloading loom-publish: 500 Server Error",
    });
    await assert.rejects(readArtifactFile(ctx, "test", artifact(46, "loom-publish"), "x.json"), {
      retryable: false,
    });
    gh.done();
  });

  it("an archive that is not a zip is a reason, remembered: it is not downloaded again", async () => {
    gh = mockGitHub();
    serveZip(gh, 47, Buffer.from("this is no zip"));
    const ctx = makeContext(makeDiamond());
    const broken = artifact(47, "loom-result");
    const first = await readArtifactFile(ctx, "test", broken, "loom-result.json");
    assert.equal(first.ok, false);
    assert.match(!first.ok ? first.reason : "", /^loom-result: not a readable zip archive/);
    assert.deepEqual(await readArtifactFile(ctx, "test", broken, "loom-result.json"), first);
    assert.equal(ctx.calls?.by.test, 1);
    gh.done();
  });

  it("the same artifact id in another repository is downloaded on its own", async () => {
    gh = mockGitHub();
    serveArtifact(gh, 48, { "a.json": '"octo"' });
    gh.api
      .get("/repos/octo/other/actions/artifacts/48/zip")
      .reply(302, "", { location: `${BLOB}/blob/other-48?sig=x` });
    gh.other(BLOB)
      .get("/blob/other-48")
      .query(true)
      .reply(200, makeZip({ "a.json": '"other"' }), { "content-type": "application/zip" });
    const ctx = makeContext(makeDiamond());
    const first = await readArtifactFile(ctx, "test", artifact(48, "x"), "a.json");
    const second = await readArtifactFile({ ...ctx, repo: "other" }, "test", artifact(48, "x"), "a.json");
    assert.deepEqual(
      [first, second],
      [
        { ok: true, text: '"octo"' },
        { ok: true, text: '"other"' },
      ],
    );
    gh.done();
  });

  it("parses an artifact's JSON with a schema, or says why not", () => {
    const schema = z.object({ n: z.number() });
    assert.deepEqual(parseArtifactJson({ ok: true, text: '{"n":1}' }, schema), { ok: true, value: { n: 1 } });
    assert.deepEqual(parseArtifactJson({ ok: false, reason: "gone" }, schema), { ok: false, reason: "gone" });
    const notJson = parseArtifactJson({ ok: true, text: "{" }, schema);
    assert.match(!notJson.ok ? notJson.reason : "", /^not JSON: /);
    const wrong = parseArtifactJson({ ok: true, text: '{"n":"1"}' }, schema);
    assert.match(!wrong.ok ? wrong.reason : "", /^does not fit the schema: .*expected number/s);
  });
});

describe("heartbeats", () => {
  it("are read live on github.com and GHE.com only", () => {
    assert.equal(hasLiveHeartbeats(undefined), true);
    assert.equal(hasLiveHeartbeats("https://GitHub.com"), true);
    assert.equal(hasLiveHeartbeats("https://acme.ghe.com"), true);
    assert.equal(hasLiveHeartbeats("https://github.acme.com"), false);
    assert.equal(hasLiveHeartbeats("https://ghe.com.example"), false);
  });

  it("the newest is the highest sequence, then the latest upload; other names are no heartbeats", () => {
    const artifacts = [
      artifact(1, "loom-heartbeat-3", { createdAt: "2026-11-21T12:02:00Z" }),
      artifact(2, "loom-heartbeat-3", { createdAt: "2026-11-21T12:03:00Z" }),
      artifact(3, "loom-heartbeat-3", { createdAt: "2026-11-21T12:01:00Z" }),
      artifact(4, "loom-heartbeat-1234567"),
      artifact(5, "loom-heartbeat-x"),
      artifact(6, "my-loom-heartbeat-9"),
      artifact(7, "loom-heartbeat-9-old"),
    ];
    assert.deepEqual(findLatestHeartbeatArtifact(artifacts), { artifact: artifacts[1], sequence: 3 });
    assert.equal(findLatestHeartbeatArtifact(artifacts.slice(3)), null);
  });

  it("a heartbeat that does not fit is a reason naming the artifact", async () => {
    gh = mockGitHub();
    gh.api
      .get("/repos/octo/repo/actions/runs/12/artifacts")
      .query({ per_page: "100" })
      .reply(200, { total_count: 1, artifacts: [listedArtifact(50, "loom-heartbeat-4")] });
    serveArtifact(gh, 50, { "heartbeat.json": '{"stage_id":"a"}' });
    const reading = await readLatestHeartbeat(makeContext(makeDiamond()), 12);
    assert.equal(reading?.ok, false);
    assert.match(reading?.ok === false ? reading.reason : "", /^loom-heartbeat-4: does not fit the schema/);
    gh.done();
  });
});

describe("reading a finished run", () => {
  it("a run GitHub cannot give now is a retryable error", async () => {
    gh = mockGitHub();
    gh.api.get("/repos/octo/repo/actions/runs/9").reply(502, { message: "Bad Gateway" });
    await assert.rejects(readRunOutcome(makeContext(makeDiamond()), 9), {
      retryable: true,
      message: "reading run 9: 502 Bad Gateway",
    });
    gh.done();
  });

  it("artifacts that are there but unusable are named in the crash, with the run's facts", async () => {
    gh = mockGitHub();
    completedRun(gh, "failure");
    listArtifacts(gh, [listedArtifact(2, "loom-result"), listedArtifact(3, "loom-publish")]);
    serveArtifact(gh, 2, { "loom-result.json": "{not json" });
    serveArtifact(gh, 3, { "loom-publish.json": JSON.stringify({ version: 1 }) });
    const reading = await readRunOutcome(makeContext(makeDiamond()), 9);
    assert.equal(reading.runId, 9);
    assert.equal(reading.status, "completed");
    assert.equal(reading.conclusion, "failure");
    assert.equal(reading.htmlUrl, "https://github.com/octo/repo/actions/runs/9");
    assert.equal(reading.title, "loom a [k]");
    assert.equal(reading.result, null);
    assert.equal(reading.publish, null);
    assert.equal(reading.problems.length, 2);
    assert.match(reading.problems[0] ?? "", /^loom-publish: does not fit the schema/);
    assert.match(reading.problems[1] ?? "", /^loom-result: not JSON/);
    assert.equal(reading.finished?.outcome, "crashed");
    assert.match(
      reading.finished?.detail ?? "",
      /^the run ended \(failure\) without a loom-result \(loom-publish: .*; loom-result: not JSON/s,
    );
    gh.done();
  });

  it("a loom-publish whose carried result does not fit is not believed: the run's own loom-result is", async () => {
    gh = mockGitHub();
    completedRun(gh);
    listArtifacts(gh, [listedArtifact(2, "loom-result"), listedArtifact(3, "loom-publish")]);
    serveArtifact(gh, 3, {
      "loom-publish.json": JSON.stringify(published),
      "loom-result.json": JSON.stringify({ ...result, version: 2 }),
    });
    serveArtifact(gh, 2, { "loom-result.json": JSON.stringify(result) });
    const reading = await readRunOutcome(makeContext(makeDiamond()), 9);
    assert.equal(reading.result?.cost_usd, 0.42);
    assert.deepEqual(reading.problems, []);
    gh.done();
  });

  it("a run without any loom artifact crashed, and nothing is downloaded", async () => {
    gh = mockGitHub();
    completedRun(gh, "failure");
    listArtifacts(gh, [listedArtifact(4, "loom-heartbeat-1")]);
    const reading = await readRunOutcome(makeContext(makeDiamond()), 9);
    assert.deepEqual(reading.finished, {
      outcome: "crashed",
      detail: "the run ended (failure) without a loom-result",
    });
    gh.done();
  });
});

describe("the run.finished event", () => {
  const reading = (over: Partial<RunReading>): RunReading => ({
    runId: 9,
    status: "completed",
    conclusion: "success",
    htmlUrl: "h",
    title: "t",
    result,
    publish: null,
    problems: [],
    finished: { outcome: "completed", detail: "done" },
    ...over,
  });
  const expected = { stageId: "a", attempt: 1, at: 5 };

  it("is not there while the run goes on", () => {
    assert.equal(toRunFinishedEvent(reading({ finished: null }), expected), null);
  });

  it("carries the session's head when nothing was published, and no head for an outcome that is not completed", () => {
    const completed = toRunFinishedEvent(reading({}), expected);
    assert.equal(completed?.type === "run.finished" && completed.headSha, SHA);
    const failed = toRunFinishedEvent(
      reading({ finished: { outcome: "completed-with-failures", detail: "2 failed" } }),
      expected,
    );
    assert.ok(failed?.type === "run.finished");
    assert.equal("headSha" in failed, false);
    assert.equal(failed.detail, "2 failed");
    assert.ok(failed.report, "the numbers of this stage's attempt come along");
  });

  it("a result written for another stage is not believed: the run crashed, saying whose result it was", () => {
    const event = toRunFinishedEvent(reading({ result: { ...result, stage_id: "b" } }), expected);
    assert.ok(event?.type === "run.finished");
    assert.equal(event.outcome, "crashed");
    assert.equal(event.detail, "loom-result is for stage b attempt 1, not a attempt 1");
    assert.equal(event.report, undefined);
    assert.equal("headSha" in event, false);
  });

  it("without a result, the decided outcome stands and no report is attached", () => {
    const event = toRunFinishedEvent(
      reading({ result: null, finished: { outcome: "crashed", detail: "no result" } }),
      expected,
    );
    assert.deepEqual(event, {
      type: "run.finished",
      at: 5,
      stageId: "a",
      attempt: 1,
      runId: 9,
      outcome: "crashed",
      detail: "no result",
    });
  });
});

describe("how a finished run ended", () => {
  const evidence = (over: Partial<RunEvidence>): RunEvidence => ({
    status: "completed",
    conclusion: "success",
    result,
    publish: published,
    problems: [],
    ...over,
  });

  it("says each reason in full", () => {
    assert.deepEqual(decideRunOutcome(evidence({ conclusion: "cancelled" })), {
      outcome: "cancelled",
      detail: "the run was cancelled",
    });
    assert.deepEqual(decideRunOutcome(evidence({ conclusion: "timed_out" })), {
      outcome: "timed-out",
      detail: "the run hit its time limit",
    });
    assert.deepEqual(decideRunOutcome(evidence({ conclusion: null, result: null })), {
      outcome: "crashed",
      detail: "the run ended (no conclusion) without a loom-result",
    });
    assert.deepEqual(
      decideRunOutcome(evidence({ conclusion: "failure", publish: null, problems: ["p1", "p2"] })),
      {
        outcome: "crashed",
        detail: "the session completed but its work was not published (failure) (p1; p2)",
      },
    );
    assert.deepEqual(decideRunOutcome(evidence({})), {
      outcome: "completed",
      detail: "all 3 acceptance checks passed",
    });
  });

  it("a session that did not complete keeps its outcome when nothing was published", () => {
    const handoff = { ...result, outcome: "needs-handoff" as const, reason: "context 92%" };
    assert.deepEqual(decideRunOutcome(evidence({ conclusion: "failure", result: handoff, publish: null })), {
      outcome: "needs-handoff",
      detail: "context 92%",
    });
    assert.deepEqual(decideRunOutcome(evidence({ conclusion: "success", publish: null })), {
      outcome: "completed",
      detail: "all 3 acceptance checks passed",
    });
  });

  it("a refused publish lists every refusal; a refusal without reasons says so; another outcome stays", () => {
    const refusals: PublishResult["refusals"] = [
      { rule: "workflow-change", path: ".github/workflows/ci.yml", detail: "changes under .github/" },
      { rule: "bundle-invalid", detail: "the bundle does not unpack" },
    ];
    assert.deepEqual(decideRunOutcome(evidence({ publish: { ...published, ok: false, refusals } })), {
      outcome: "completed-with-failures",
      detail:
        "publishing was refused: workflow-change (.github/workflows/ci.yml): changes under .github/; bundle-invalid: the bundle does not unpack",
    });
    assert.deepEqual(
      decideRunOutcome(
        evidence({
          result: { ...result, outcome: "needs-handoff" },
          publish: { ...published, ok: false, refusals: [] },
        }),
      ),
      { outcome: "needs-handoff", detail: "publishing was refused: no reason given" },
    );
  });

  it("a session that ran without isolation says it could read the runner's tokens", () => {
    const unisolated = {
      ...result,
      session_id: "s-1",
      isolation: { mode: "none" as const, reason: "session.require_isolation is false" },
    };
    assert.equal(
      decideRunOutcome(evidence({ result: unisolated }))?.detail,
      "all 3 acceptance checks passed (not isolated: the session and the checks ran as the runner's own user and could read its tokens; session.require_isolation is false)",
    );
    const noSession = { ...unisolated, session_id: undefined };
    assert.equal(decideRunOutcome(evidence({ result: noSession }))?.detail, "all 3 acceptance checks passed");
    const isolated = {
      ...result,
      session_id: "s-1",
      isolation: { mode: "user" as const, user: "loom-session" },
    };
    assert.equal(decideRunOutcome(evidence({ result: isolated }))?.detail, "all 3 acceptance checks passed");
  });
});
