import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { readDefaultBranch } from "../../app/github/default-branch.ts";
import {
  EffectError,
  getRepoUrl,
  readErrorMessage,
  readStatus,
  sleepFor,
  toEffectError,
} from "../../app/github/effect-context.ts";
import { executeEffect } from "../../app/github/execute-effect.ts";
import { readConditional } from "../../app/github/read-conditional.ts";
import { createGitHubCache } from "../../app/github/github-cache.ts";
import type { Effect } from "../../src/orchestrator/effects.ts";
import { mockGitHub } from "../support/github-mock.ts";
import type { GitHubMock } from "../support/github-mock.ts";
import { makeDiamond } from "../status/make-plan-state.ts";
import { makeContext } from "./make-context.ts";

/*
 * Whether a failed GitHub call is tried again (the outbox's decision rests on `retryable`) and
 * what the error says, through the small effects (cancel, delete, create a branch) and the
 * helpers every effect uses.
 */

const CANCEL = "/repos/octo/repo/actions/runs/55/cancel";
const STAGE_REF = "/repos/octo/repo/git/ref/heads%2Floom%2Fpr-7%2FPLAN-demo%2Fa";
const BASE_REF = "/repos/octo/repo/git/ref/heads%2Ffeature%2Fdemo";
const SHA = "e".repeat(40);
const cancel: Effect = { type: "cancelRun", key: "k", stageId: "a", runId: 55 };
const create: Effect = {
  type: "createBranch",
  key: "k:a:branch",
  stageId: "a",
  branch: "loom/pr-7/PLAN-demo/a",
  from: "feature/demo",
};
const ref = (name: string) => ({ ref: `refs/heads/${name}`, object: { sha: SHA, type: "commit" } });

let gh: GitHubMock | undefined;
afterEach(() => gh?.cleanup());

describe("which failures are tried again", () => {
  const cases: {
    what: string;
    status: number;
    headers?: Record<string, string>;
    retryable: boolean;
  }[] = [
    { what: "a server error", status: 500, retryable: true },
    { what: "a bad gateway", status: 502, retryable: true },
    { what: "too many requests", status: 429, retryable: true },
    { what: "a spent rate limit", status: 403, headers: { "x-ratelimit-remaining": "0" }, retryable: true },
    { what: "a secondary rate limit", status: 403, headers: { "retry-after": "30" }, retryable: true },
    {
      what: "a refusal with rate-limit headers left",
      status: 403,
      headers: { "x-ratelimit-remaining": "12" },
      retryable: false,
    },
    { what: "a refusal", status: 403, retryable: false },
    { what: "an invalid request", status: 422, retryable: false },
    { what: "a status just below the server errors", status: 499, retryable: false },
  ];
  for (const c of cases)
    it(`${c.what} (${c.status}) is ${c.retryable ? "" : "not "}retryable, and says what failed and why`, async () => {
      gh = mockGitHub();
      gh.api.post(CANCEL).reply(c.status, { message: "GitHub says no" }, c.headers ?? {});
      await assert.rejects(executeEffect(makeContext(makeDiamond()), cancel), (error: unknown) => {
        assert.ok(error instanceof EffectError);
        assert.equal(error.name, "EffectError");
        assert.equal(error.retryable, c.retryable);
        assert.equal(error.status, c.status);
        assert.equal(error.message, `cancelling run 55: ${c.status} GitHub says no`);
        assert.equal(readStatus(error.cause), c.status, "the cause is GitHub's answer");
        return true;
      });
      gh.done();
    });

  it("a network failure (no answer at all; Octokit reports it as 500) is retryable", async () => {
    gh = mockGitHub();
    gh.api.post(CANCEL).replyWithError("socket hang up");
    await assert.rejects(executeEffect(makeContext(makeDiamond()), cancel), (error: unknown) => {
      assert.ok(error instanceof EffectError);
      assert.equal(error.retryable, true);
      assert.match(error.message, /^cancelling run 55: 500 .*socket hang up/);
      return true;
    });
    gh.done();
  });

  it("an error without GitHub's message uses its own; anything else thrown is written out", () => {
    assert.equal(readErrorMessage(new Error("plain")), "plain");
    assert.equal(readErrorMessage({ response: { data: { message: 42 } } }), "[object Object]");
    assert.equal(readErrorMessage(Object.assign(new Error("own"), { response: { data: null } })), "own");
    assert.equal(readErrorMessage(Object.assign(new Error("own"), { response: {} })), "own");
    assert.equal(readErrorMessage("text"), "text");
    assert.equal(readStatus({ status: "500" }), null);
    assert.equal(readStatus(null), null);
    assert.equal(readStatus(7), null);
    const bug = toEffectError("doing x", new TypeError("y is undefined"));
    assert.deepEqual(
      [bug.message, bug.status, bug.retryable],
      ["doing x: network error y is undefined", null, true],
    );
  });
});

describe("cancelling a run", () => {
  it("asks GitHub once and logs it; a run already finished (409) is fine and quiet", async () => {
    gh = mockGitHub();
    gh.api.post(CANCEL).reply(202, {});
    gh.api.post(CANCEL).reply(409, { message: "Cannot cancel a workflow run that is completed." });
    const ctx = makeContext(makeDiamond());
    assert.deepEqual(await executeEffect(ctx, cancel), []);
    assert.deepEqual(await executeEffect(ctx, cancel), []);
    assert.deepEqual(
      ctx.lines.map((line) => [line.level, line.message]),
      [["info", "run cancel requested"]],
    );
    assert.equal(ctx.calls?.by.cancelRun, 2);
    gh.done();
  });

  it("a run that is not there (404) is fine, with a warning", async () => {
    gh = mockGitHub();
    gh.api.post(CANCEL).reply(404, { message: "Not Found" });
    const ctx = makeContext(makeDiamond());
    assert.deepEqual(await executeEffect(ctx, cancel), []);
    assert.deepEqual(ctx.lines, [
      { level: "warn", data: { stage: "a", runId: 55 }, message: "run to cancel not found" },
    ]);
    gh.done();
  });
});

describe("deleting a stage branch", () => {
  it("deletes a loom/ branch and logs it; one already gone (422) is fine", async () => {
    gh = mockGitHub();
    gh.api.delete("/repos/octo/repo/git/refs/heads%2Floom%2Fx").reply(204);
    gh.api
      .delete("/repos/octo/repo/git/refs/heads%2Floom%2Fy")
      .reply(422, { message: "Reference does not exist" });
    const ctx = makeContext(makeDiamond());
    assert.deepEqual(await executeEffect(ctx, { type: "deleteBranch", key: "k", branch: "loom/x" }), []);
    assert.deepEqual(await executeEffect(ctx, { type: "deleteBranch", key: "k", branch: "loom/y" }), []);
    assert.deepEqual(
      ctx.lines.map((line) => line.message),
      ["stage branch deleted"],
    );
    gh.done();
  });

  it("deletes a continued stage's /loom continue record with its branch: one more request", async () => {
    gh = mockGitHub();
    gh.api.delete("/repos/octo/repo/git/refs/heads%2Floom%2Fx").reply(204);
    gh.api.delete("/repos/octo/repo/git/refs/loom%2Fcontinue%2Floom%2Fx").reply(204);
    const ctx = makeContext(makeDiamond());
    const effect = {
      type: "deleteBranch" as const,
      key: "k",
      branch: "loom/x",
      continueRecord: true as const,
    };
    assert.deepEqual(await executeEffect(ctx, effect), []);
    gh.done();
  });

  it("a delete GitHub cannot do now is tried again", async () => {
    gh = mockGitHub();
    gh.api.delete("/repos/octo/repo/git/refs/heads%2Floom%2Fx").reply(500, { message: "Server Error" });
    await assert.rejects(
      executeEffect(makeContext(makeDiamond()), { type: "deleteBranch", key: "k", branch: "loom/x" }),
      {
        retryable: true,
        message: "deleting branch loom/x: 500 Server Error",
      },
    );
    gh.done();
  });

  it("never deletes a branch outside loom/, not even one whose name starts like it", async () => {
    gh = mockGitHub();
    for (const branch of ["main", "loomy/x", "feature/loom/x"])
      await assert.rejects(
        executeEffect(makeContext(makeDiamond()), { type: "deleteBranch", key: "k", branch }),
        {
          retryable: false,
          status: null,
          message: `refusing to delete ${branch}: not a loom stage branch`,
        },
      );
    assert.equal(gh.requests.length, 0);
    gh.done();
  });
});

describe("creating a stage branch for a retry", () => {
  it("creates it at the merge point's head in 3 requests and logs where", async () => {
    gh = mockGitHub();
    gh.api.get(STAGE_REF).reply(404, { message: "Not Found" });
    gh.api.get(BASE_REF).reply(200, ref("feature/demo"));
    gh.api.post("/repos/octo/repo/git/refs").reply(201, ref("loom/pr-7/PLAN-demo/a"));
    const ctx = makeContext(makeDiamond());
    assert.deepEqual(await executeEffect(ctx, create), []);
    assert.deepEqual(gh.find("POST", "/repos/octo/repo/git/refs")[0]?.body, {
      ref: "refs/heads/loom/pr-7/PLAN-demo/a",
      sha: SHA,
    });
    assert.equal(ctx.calls?.by.createBranch, 3);
    assert.deepEqual(ctx.lines, [
      { level: "info", data: { branch: "loom/pr-7/PLAN-demo/a", sha: SHA }, message: "stage branch created" },
    ]);
    gh.done();
  });

  it("a missing merge point says which, as GitHub's 404", async () => {
    gh = mockGitHub();
    gh.api.get(STAGE_REF).reply(404, { message: "Not Found" });
    gh.api.get(BASE_REF).reply(404, { message: "Not Found" });
    await assert.rejects(executeEffect(makeContext(makeDiamond()), create), {
      message: "merge point feature/demo is missing",
      status: 404,
      retryable: false,
    });
    gh.done();
  });

  it("a branch GitHub cannot read now is tried again, and nothing is created", async () => {
    gh = mockGitHub();
    gh.api.get(STAGE_REF).reply(503, { message: "Unavailable" });
    await assert.rejects(executeEffect(makeContext(makeDiamond()), create), {
      retryable: true,
      message: "reading branch loom/pr-7/PLAN-demo/a: 503 Unavailable",
    });
    gh.done();
  });

  it("a 422 on create with the branch still missing is an error, not success", async () => {
    gh = mockGitHub();
    gh.api.get(STAGE_REF).reply(404, { message: "Not Found" });
    gh.api.get(BASE_REF).reply(200, ref("feature/demo"));
    gh.api.post("/repos/octo/repo/git/refs").reply(422, { message: "Object does not exist" });
    gh.api.get(STAGE_REF).reply(404, { message: "Not Found" });
    await assert.rejects(executeEffect(makeContext(makeDiamond()), create), {
      retryable: false,
      status: 422,
      message: "creating branch loom/pr-7/PLAN-demo/a: 422 Object does not exist",
    });
    gh.done();
  });

  it("a create GitHub did not answer is tried again without looking", async () => {
    gh = mockGitHub();
    gh.api.get(STAGE_REF).reply(404, { message: "Not Found" });
    gh.api.get(BASE_REF).reply(200, ref("feature/demo"));
    gh.api.post("/repos/octo/repo/git/refs").reply(502, { message: "Bad Gateway" });
    await assert.rejects(executeEffect(makeContext(makeDiamond()), create), { retryable: true, status: 502 });
    assert.equal(gh.find("GET", STAGE_REF).length, 1);
    gh.done();
  });
});

describe("the repository's default branch", () => {
  it("is read once when the config does not know it, then remembered", async () => {
    gh = mockGitHub();
    gh.api.get("/repos/octo/repo").reply(200, { default_branch: "trunk" });
    const ctx = makeContext(makeDiamond(), { config: { workflowFile: "loom.yml" } });
    assert.equal(await readDefaultBranch(ctx, "test"), "trunk");
    assert.equal(await readDefaultBranch(ctx, "test"), "trunk");
    assert.equal(ctx.calls?.by.test, 1);
    gh.done();
  });

  it("is not read when known; a read GitHub cannot answer now is tried again", async () => {
    gh = mockGitHub();
    assert.equal(await readDefaultBranch(makeContext(makeDiamond()), "test"), "main");
    gh.api.get("/repos/octo/repo").reply(500, { message: "Server Error" });
    const ctx = makeContext(makeDiamond(), { config: { workflowFile: "loom.yml" } });
    await assert.rejects(readDefaultBranch(ctx, "test"), {
      retryable: true,
      message: "reading the default branch: 500 Server Error",
    });
    gh.done();
  });
});

describe("conditional reads", () => {
  type Read = { headers: Record<string, string> };
  const answer = (etag: string | undefined, data: unknown) => ({ data, headers: etag ? { etag } : {} });
  const notModified = Object.assign(new Error("Not Modified"), { status: 304 });

  it("sends the ETag it remembers and takes a 304 as the remembered data, counted as free", async () => {
    const cache = createGitHubCache();
    const env = { cache, calls: { total: 0, notModified: 0, by: {} } };
    const reads: Read[] = [];
    const first = await readConditional(env, "poll", "k", (headers) => {
      reads.push({ headers });
      return Promise.resolve(answer('"v1"', { n: 1 }));
    });
    const second = await readConditional(env, "poll", "k", (headers) => {
      reads.push({ headers });
      return Promise.reject(notModified);
    });
    assert.deepEqual(
      [first, second],
      [
        { data: { n: 1 }, changed: true },
        { data: { n: 1 }, changed: false },
      ],
    );
    assert.deepEqual(reads, [{ headers: {} }, { headers: { "if-none-match": '"v1"' } }]);
    assert.deepEqual(env.calls, { total: 2, notModified: 1, by: { poll: 2 } });
  });

  it("a 304 is answered from the cache also when nobody counts the calls", async () => {
    const cache = createGitHubCache();
    await readConditional({ cache }, "poll", "k", () => Promise.resolve(answer('"v1"', { n: 2 })));
    const again = await readConditional({ cache }, "poll", "k", () => Promise.reject(notModified));
    assert.deepEqual(again, { data: { n: 2 }, changed: false });
  });

  it("an answer without an ETag is not remembered; another key has its own", async () => {
    const cache = createGitHubCache();
    const reads: Read[] = [];
    const read = (etag: string | undefined) => (headers: Record<string, string>) => {
      reads.push({ headers });
      return Promise.resolve(answer(etag, 1));
    };
    await readConditional({ cache }, "poll", "a", read(undefined));
    await readConditional({ cache }, "poll", "a", read(undefined));
    await readConditional({ cache }, "poll", "b", read('"b1"'));
    await readConditional({ cache }, "poll", "a", read(undefined));
    assert.deepEqual(
      reads.map((r) => r.headers),
      [{}, {}, {}, {}],
    );
  });

  it("without a cache it is a plain read; a 304 it did not ask for, or another failure, is thrown", async () => {
    const reads: Read[] = [];
    const plain = await readConditional({}, "poll", "k", (headers) => {
      reads.push({ headers });
      return Promise.resolve(answer('"v1"', 5));
    });
    assert.deepEqual(plain, { data: 5, changed: true });
    await assert.rejects(
      readConditional({}, "poll", "k", () => Promise.reject(notModified)),
      (error) => error === notModified,
    );
    const cache = createGitHubCache();
    await readConditional({ cache }, "poll", "k", () => Promise.resolve(answer('"v1"', 5)));
    const gone = Object.assign(new Error("Gone"), { status: 410 });
    await assert.rejects(
      readConditional({ cache }, "poll", "k", () => Promise.reject(gone)),
      (error) => error === gone,
    );
  });
});

describe("small helpers every effect uses", () => {
  it("links to github.com, or to the Enterprise server it is given", () => {
    assert.equal(
      getRepoUrl({ owner: "o", repo: "r", config: { workflowFile: "x" } }),
      "https://github.com/o/r",
    );
    assert.equal(
      getRepoUrl({ owner: "o", repo: "r", config: { workflowFile: "x", serverUrl: "https://ghe.acme.com" } }),
      "https://ghe.acme.com/o/r",
    );
  });

  it("waits with the context's own sleep when given, else with a real timer", async () => {
    const slept: number[] = [];
    const ctx = makeContext(makeDiamond(), {
      sleep: (ms) => {
        slept.push(ms);
        return Promise.resolve();
      },
    });
    await sleepFor(ctx, 2_000);
    assert.deepEqual(slept, [2_000]);
    const real = makeContext(makeDiamond());
    delete (real as { sleep?: unknown }).sleep;
    const started = Date.now();
    await sleepFor(real, 30);
    assert.ok(Date.now() - started >= 25, "a real wait");
  });
});
