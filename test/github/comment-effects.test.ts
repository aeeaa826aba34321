import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { executeEffect } from "../../app/github/execute-effect.ts";
import type { Effect } from "../../src/orchestrator/effects.ts";
import { mockGitHub } from "../support/github-mock.ts";
import type { GitHubMock } from "../support/github-mock.ts";
import { makeDiamond } from "../status/make-plan-state.ts";
import { makeContext } from "./make-context.ts";

/*
 * The status comment and command replies: whose comment loom edits, how far it looks, what it
 * does when GitHub fails, and what a reply looks like.
 */

const COMMENTS = "/repos/octo/repo/issues/7/comments";
const MARKER = "<!-- loom:status:doc/plans/PLAN-demo.md -->";
const status: Effect = { type: "syncStatusComment", key: "k:status" };
const BOT = "loom[bot]";
const botConfig = { workflowFile: "loom.yml", defaultBranch: "main", botLogin: BOT };
const page = (n: number) => ({ per_page: "100", page: String(n) });
const filler = (from: number) =>
  Array.from({ length: 100 }, (_, i) => ({
    id: from + i,
    body: "chatter",
    user: { login: "alice", type: "User" },
  }));

let gh: GitHubMock | undefined;
afterEach(() => gh?.cleanup());

describe("the status comment", () => {
  it("with loom's login known, only loom's own comment is taken: another bot's with the marker is not", async () => {
    gh = mockGitHub();
    gh.api
      .get(COMMENTS)
      .query(page(1))
      .reply(200, [
        { id: 10, body: `${MARKER}\nother bot`, user: { login: "copycat[bot]", type: "Bot" } },
        { id: 11, body: `${MARKER}\nno user`, user: null },
        { id: 12, body: `${MARKER}\nloom`, user: { login: BOT, type: "Bot" } },
      ]);
    gh.api.patch("/repos/octo/repo/issues/comments/12").reply(200, { id: 12 });
    await executeEffect(makeContext(makeDiamond(), { config: botConfig }), status);
    gh.done();
  });

  it("with loom's login known, no comment of loom's means a new one, whatever other bots wrote", async () => {
    gh = mockGitHub();
    gh.api
      .get(COMMENTS)
      .query(page(1))
      .reply(200, [
        { id: 10, body: `${MARKER}\nother bot`, user: { login: "copycat[bot]", type: "Bot" } },
        { id: 13, user: { login: BOT, type: "Bot" } },
        { id: 14, body: `not first ${MARKER}`, user: { login: BOT, type: "Bot" } },
      ]);
    gh.api.post(COMMENTS).reply(201, { id: 15 });
    await executeEffect(makeContext(makeDiamond(), { config: botConfig }), status);
    assert.match((gh.find("POST", COMMENTS)[0]?.body as { body: string }).body, /^<!-- loom:status:/);
    gh.done();
  });

  it("without loom's login, only a bot's comment is taken: not a person's, nor a deleted account's", async () => {
    gh = mockGitHub();
    gh.api
      .get(COMMENTS)
      .query(page(1))
      .reply(200, [
        { id: 20, body: `${MARKER}\nghost`, user: null },
        { id: 21, body: `${MARKER}\nperson`, user: { login: "mallory", type: "User" } },
      ]);
    gh.api.post(COMMENTS).reply(201, { id: 22 });
    await executeEffect(makeContext(makeDiamond()), status);
    gh.done();
  });

  it("looks through 10 pages of comments at most, then writes a new one", async () => {
    gh = mockGitHub();
    for (let n = 1; n <= 10; n++)
      gh.api
        .get(COMMENTS)
        .query(page(n))
        .reply(200, filler(n * 100));
    gh.api.post(COMMENTS).reply(201, { id: 5000 });
    const ctx = makeContext(makeDiamond());
    await executeEffect(ctx, status);
    assert.equal(gh.find("GET", COMMENTS).length, 10);
    assert.equal(ctx.calls?.by.syncStatusComment, 11);
    gh.done();
  });

  it("a page of fewer than 100 comments is the last one looked at", async () => {
    gh = mockGitHub();
    gh.api.get(COMMENTS).query(page(1)).reply(200, filler(100));
    gh.api.get(COMMENTS).query(page(2)).reply(200, filler(200).slice(0, 99));
    gh.api.post(COMMENTS).reply(201, { id: 5001 });
    await executeEffect(makeContext(makeDiamond()), status);
    assert.equal(gh.find("GET", COMMENTS).length, 2);
    gh.done();
  });

  it("each plan of a pull request has its own comment, remembered apart", async () => {
    gh = mockGitHub();
    gh.api.get(COMMENTS).query(page(1)).reply(200, []);
    gh.api.post(COMMENTS).reply(201, { id: 800 });
    gh.api.get(COMMENTS).query(page(1)).reply(200, []);
    gh.api.post(COMMENTS).reply(201, { id: 801 });
    const ctx = makeContext(makeDiamond());
    await executeEffect(ctx, status);
    const other = makeDiamond();
    ctx.state = { ...other, plan: { ...other.plan, id: "PLAN-other", path: "doc/plans/PLAN-other.md" } };
    await executeEffect(ctx, status);
    const bodies = gh.find("POST", COMMENTS).map((r) => (r.body as { body: string }).body.split("\n")[0]);
    assert.deepEqual(bodies, [MARKER, "<!-- loom:status:doc/plans/PLAN-other.md -->"]);
    gh.done();
  });

  it("a comment list GitHub cannot give now is tried again", async () => {
    gh = mockGitHub();
    gh.api.get(COMMENTS).query(page(1)).reply(502, { message: "Bad Gateway" });
    await assert.rejects(executeEffect(makeContext(makeDiamond()), status), {
      retryable: true,
      message: "listing pull request comments: 502 Bad Gateway",
    });
    gh.done();
  });

  it("an update GitHub cannot do now is tried again, and the comment is not forgotten", async () => {
    gh = mockGitHub();
    gh.api
      .get(COMMENTS)
      .query(page(1))
      .reply(200, [{ id: 700, body: `${MARKER}\nold`, user: { login: BOT, type: "Bot" } }]);
    gh.api.patch("/repos/octo/repo/issues/comments/700").reply(500, { message: "Server Error" });
    const ctx = makeContext(makeDiamond());
    await assert.rejects(executeEffect(ctx, status), {
      retryable: true,
      message: "updating the status comment: 500 Server Error",
    });
    gh.done();
  });

  it("a comment gone (404) while another one of loom's is found is an error, never a second comment", async () => {
    gh = mockGitHub();
    const mine = [{ id: 700, body: `${MARKER}\nold`, user: { login: BOT, type: "Bot" } }];
    gh.api.get(COMMENTS).query(page(1)).reply(200, mine);
    gh.api.patch("/repos/octo/repo/issues/comments/700").reply(404, { message: "Not Found" });
    gh.api.get(COMMENTS).query(page(1)).reply(200, mine);
    await assert.rejects(executeEffect(makeContext(makeDiamond()), status), {
      message: "updating the status comment: 404 Not Found",
    });
    assert.equal(gh.find("POST", COMMENTS).length, 0);
    gh.done();
  });

  it("a comment loom remembered but someone deleted is looked up again, and written anew", async () => {
    gh = mockGitHub();
    gh.api.get(COMMENTS).query(page(1)).reply(200, []);
    gh.api.post(COMMENTS).reply(201, { id: 900 });
    gh.api.patch("/repos/octo/repo/issues/comments/900").reply(404, { message: "Not Found" });
    gh.api.get(COMMENTS).query(page(1)).reply(200, []);
    gh.api.post(COMMENTS).reply(201, { id: 901 });
    gh.api.patch("/repos/octo/repo/issues/comments/901").reply(200, { id: 901 });
    const ctx = makeContext(makeDiamond());
    await executeEffect(ctx, status);
    ctx.state = makeDiamond({ a: { status: "executing", attempt: 1 } });
    await executeEffect(ctx, status);
    // The new comment is remembered: the next change updates it in place, without a look-up.
    ctx.state = makeDiamond({
      a: { status: "executing", attempt: 1 },
      b: { status: "executing", attempt: 1 },
    });
    await executeEffect(ctx, status);
    assert.equal(gh.find("GET", COMMENTS).length, 2);
    gh.done();
  });

  it("a create GitHub cannot do now is tried again", async () => {
    gh = mockGitHub();
    gh.api.get(COMMENTS).query(page(1)).reply(200, []);
    gh.api.post(COMMENTS).reply(503, { message: "Unavailable" });
    await assert.rejects(executeEffect(makeContext(makeDiamond()), status), {
      retryable: true,
      message: "creating the status comment: 503 Unavailable",
    });
    gh.done();
  });

  it("without a cache every sync looks the comment up and writes it", async () => {
    gh = mockGitHub();
    const mine = [{ id: 700, body: `${MARKER}\nold`, user: { login: "someone[bot]", type: "Bot" } }];
    gh.api.get(COMMENTS).query(page(1)).twice().reply(200, mine);
    gh.api.patch("/repos/octo/repo/issues/comments/700").twice().reply(200, { id: 700 });
    const ctx = makeContext(makeDiamond(), { cache: undefined });
    await executeEffect(ctx, status);
    await executeEffect(ctx, status);
    gh.done();
  });
});

describe("command replies", () => {
  const REACTIONS = "/repos/octo/repo/issues/comments/77/reactions";
  const reply = (body: string | null): Effect => ({
    type: "reply",
    key: "k:retry--77",
    source: { kind: "comment", commentId: 77 },
    reaction: "+1",
    body,
  });

  it("a command comment deleted before the reaction (404) still gets its reply", async () => {
    gh = mockGitHub();
    gh.api.post(REACTIONS).reply(404, { message: "Not Found" });
    gh.api.post(COMMENTS).reply(201, { id: 1 });
    assert.deepEqual(await executeEffect(makeContext(makeDiamond()), reply("done")), []);
    assert.equal(gh.find("POST", COMMENTS).length, 1);
    gh.done();
  });

  it("a reaction GitHub cannot add now is tried again, before any reply is posted", async () => {
    gh = mockGitHub();
    gh.api.post(REACTIONS).reply(500, { message: "Server Error" });
    await assert.rejects(executeEffect(makeContext(makeDiamond()), reply("done")), {
      retryable: true,
      message: "reacting to the command: 500 Server Error",
    });
    assert.equal(gh.find("POST", COMMENTS).length, 0);
    gh.done();
  });

  it("a reply GitHub cannot post now is tried again", async () => {
    gh = mockGitHub();
    gh.api.post(REACTIONS).reply(201, {});
    gh.api.post(COMMENTS).reply(502, { message: "Bad Gateway" });
    await assert.rejects(executeEffect(makeContext(makeDiamond()), reply("done")), {
      retryable: true,
      message: "replying to the command: 502 Bad Gateway",
    });
    gh.done();
  });

  it("a long reply is cut to 4,000 characters with an ellipsis; the key cannot end the HTML comment early", async () => {
    gh = mockGitHub();
    gh.api.post(REACTIONS).reply(201, {});
    gh.api.post(COMMENTS).twice().reply(201, { id: 1 });
    await executeEffect(makeContext(makeDiamond()), reply("x".repeat(4001)));
    await executeEffect(makeContext(makeDiamond()), {
      type: "reply",
      key: "k:retry--77",
      source: { kind: "check-run-button", checkRunId: 5 },
      reaction: "+1",
      body: "y".repeat(4000),
    });
    const [long, exact] = gh.find("POST", COMMENTS).map((r) => (r.body as { body: string }).body);
    const marker = "<!-- loom:reply:k:retry-&#45;77 -->";
    assert.equal(long, `${marker}\n${"x".repeat(3999)}…`);
    assert.equal(exact, `${marker}\n${"y".repeat(4000)}`);
    gh.done();
  });

  it("a retried claim looks at 10 pages of comments at most before posting", async () => {
    gh = mockGitHub();
    gh.api.post(REACTIONS).reply(201, {});
    for (let n = 1; n <= 10; n++)
      gh.api
        .get(COMMENTS)
        .query({ per_page: "100", ...(n > 1 ? { page: String(n) } : {}) })
        .reply(200, filler(n * 100), {
          link: `<https://api.github.com/repos/octo/repo/issues/7/comments?per_page=100&page=${n + 1}>; rel="next"`,
        });
    gh.api.post(COMMENTS).reply(201, { id: 1 });
    const ctx = makeContext(makeDiamond(), { attempt: 2, config: botConfig });
    await executeEffect(ctx, reply("done"));
    assert.equal(gh.find("GET", COMMENTS).length, 10);
    assert.equal(gh.find("POST", COMMENTS).length, 1);
    gh.done();
  });

  it("a retried claim that cannot read the comments is tried again, posting nothing", async () => {
    gh = mockGitHub();
    gh.api.post(REACTIONS).reply(201, {});
    gh.api.get(COMMENTS).query(true).reply(500, { message: "Server Error" });
    await assert.rejects(executeEffect(makeContext(makeDiamond(), { attempt: 2 }), reply("done")), {
      retryable: true,
      message: "looking for an earlier reply: 500 Server Error",
    });
    assert.equal(gh.find("POST", COMMENTS).length, 0);
    gh.done();
  });

  it("a retried claim whose login loom does not know takes any comment carrying the marker as its reply", async () => {
    gh = mockGitHub();
    gh.api.post(REACTIONS).reply(201, {});
    gh.api
      .get(COMMENTS)
      .query(true)
      .reply(200, [
        { id: 1, user: null },
        { id: 2, body: "<!-- loom:reply:k:retry-&#45;77 -->\ndone", user: { login: "x[bot]" } },
      ]);
    await executeEffect(makeContext(makeDiamond(), { attempt: 2 }), reply("done"));
    assert.equal(gh.find("POST", COMMENTS).length, 0);
    gh.done();
  });
});
