import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { ProbotOctokit } from "probot";
import {
  boundGitHubFetch,
  GitHubUnreachableError,
  isBoundGitHubFetch,
} from "../../app/github/bound-github-fetch.ts";
import { boundOctokit } from "../../app/github/bound-octokit.ts";
import { UnthrottledOctokit } from "../../app/github/unthrottled-octokit.ts";
import { mockGitHub } from "../support/github-mock.ts";
import type { GitHubMock } from "../support/github-mock.ts";

/*
 * Issue 13 without a server: a GitHub that does not answer, cannot be reached, or is abandoned
 * when loom stops fails one attempt with a message saying which, and the client does not retry it.
 */

let gh: GitHubMock | undefined;
afterEach(() => gh?.cleanup());

/** A fetch that never answers; it rejects with the signal's reason when aborted, as fetch does. */
function silentFetch(calls: { init?: RequestInit }[] = []): typeof fetch {
  return (_input, init) => {
    calls.push(init === undefined ? {} : { init });
    return new Promise<Response>((_resolve, reject) => {
      init?.signal?.addEventListener("abort", () => reject(init.signal?.reason as Error));
    });
  };
}

/** A fetch that fails at once with `error` (an Error, or what some code throws instead). */
function failingFetch(error: unknown): typeof fetch {
  return () => {
    throw error as Error;
  };
}

/** The failure of `promise`, which must come within 1 s (long before any timeout the test set). */
async function promptFailureOf(promise: Promise<unknown>): Promise<Error & { cause?: unknown }> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error("the request was not abandoned at once")), 1_000);
  });
  try {
    return await Promise.race([failureOf(promise), late]);
  } finally {
    clearTimeout(timer);
  }
}

async function failureOf(promise: Promise<unknown>): Promise<Error & { cause?: unknown }> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  assert.fail("expected a failure");
}

describe("boundGitHubFetch", () => {
  it("passes GitHub's answers on as they are, error statuses included", async () => {
    const answer = new Response("{}", { status: 502 });
    const fetch = boundGitHubFetch({ timeoutMs: 1_000, fetch: () => Promise.resolve(answer) });
    assert.equal(await fetch("https://api.github.com/x"), answer);
  });

  it("a GitHub that does not answer fails the attempt after the timeout, saying so", async () => {
    const error = await failureOf(
      boundGitHubFetch({ timeoutMs: 30, fetch: silentFetch() })("https://api.github.com/x"),
    );
    assert.ok(error instanceof GitHubUnreachableError);
    assert.equal(error.name, "AbortError");
    assert.equal(error.message, "GitHub did not answer within 0.03 s");
  });

  it("stopping loom abandons a request in flight, and says so whatever else happened", async () => {
    const stopping = new AbortController();
    const pending = boundGitHubFetch({ timeoutMs: 60_000, stopping: stopping.signal, fetch: silentFetch() })(
      "https://api.github.com/x",
    );
    stopping.abort();
    assert.equal((await promptFailureOf(pending)).message, "GitHub request abandoned: loom is stopping");
  });

  it("a request its caller aborts ends with that reason, and the request's own options reach fetch", async () => {
    const own = new AbortController();
    const calls: { init?: RequestInit }[] = [];
    const pending = boundGitHubFetch({ timeoutMs: 60_000, fetch: silentFetch(calls) })(
      "https://api.github.com/x",
      {
        method: "POST",
        body: "{}",
        signal: own.signal,
      },
    );
    own.abort();
    assert.equal((await promptFailureOf(pending)).message, "GitHub request aborted by its caller");
    assert.equal(calls[0]?.init?.method, "POST");
    assert.equal(calls[0]?.init?.body, "{}");
  });

  it("a request nobody aborted that fails ends as unreachable, with the network's reason and the failure as cause", async () => {
    const refused = new TypeError("fetch failed", { cause: new Error("connect ECONNREFUSED 127.0.0.1:1") });
    const stopping = new AbortController();
    const own = new AbortController();
    const error = await failureOf(
      boundGitHubFetch({ timeoutMs: 5_000, stopping: stopping.signal, fetch: failingFetch(refused) })(
        "https://api.github.com/x",
        { signal: own.signal },
      ),
    );
    assert.equal(error.message, "GitHub unreachable: connect ECONNREFUSED 127.0.0.1:1");
    assert.equal(error.cause, refused);
  });

  it("without a cause the failure's own message is given; a thrown non-error is written out", async () => {
    const plain = await failureOf(
      boundGitHubFetch({ timeoutMs: 5_000, fetch: failingFetch(new Error("getaddrinfo ENOTFOUND")) })(
        "https://x",
      ),
    );
    assert.equal(plain.message, "GitHub unreachable: getaddrinfo ENOTFOUND");
    const odd = await failureOf(
      boundGitHubFetch({
        timeoutMs: 5_000,
        fetch: failingFetch(Object.assign(new Error("socket"), { cause: "reset" })),
      })("https://x"),
    );
    assert.equal(odd.message, "GitHub unreachable: socket");
    const thrown = await failureOf(
      boundGitHubFetch({ timeoutMs: 5_000, fetch: failingFetch("boom") })("https://x"),
    );
    assert.equal(thrown.message, "GitHub unreachable: boom");
  });

  it("a failure named like a timeout but not one is not reported as GitHub's silence", async () => {
    const notTimeout = Object.assign(new Error("slow"), { name: "TimeoutErrorish" });
    const error = await failureOf(
      boundGitHubFetch({ timeoutMs: 5_000, fetch: failingFetch(notTimeout) })("https://x"),
    );
    assert.equal(error.message, "GitHub unreachable: slow");
  });

  it("without a fetch of its own it uses the global one", async () => {
    gh = mockGitHub();
    gh.api.get("/zen").reply(200, "Keep it logically awesome.");
    const response = await boundGitHubFetch({ timeoutMs: 5_000 })("https://api.github.com/zen");
    assert.equal(await response.text(), "Keep it logically awesome.");
    gh.done();
  });

  it("knows its own fetch functions, and only those", () => {
    assert.equal(isBoundGitHubFetch(boundGitHubFetch({ timeoutMs: 1 })), true);
    assert.equal(isBoundGitHubFetch(globalThis.fetch), false);
    assert.equal(
      isBoundGitHubFetch(() => undefined),
      false,
    );
    assert.equal(isBoundGitHubFetch("fetch"), false);
  });
});

describe("boundOctokit", () => {
  const repo = { owner: "octo", repo: "repo" };

  it("a silent GitHub fails a request once, within the timeout, though the client's retry plugin is on", async () => {
    const calls: { init?: RequestInit }[] = [];
    const Bound = boundOctokit(ProbotOctokit, { timeoutMs: 30, fetch: silentFetch(calls) });
    const octokit = new Bound({ auth: "test-token", throttle: { enabled: false } });
    const error = await failureOf(octokit.rest.repos.get(repo));
    assert.equal(error.name, "AbortError");
    assert.match(error.message, /GitHub did not answer within 0\.03 s/);
    assert.equal(calls.length, 1, "not retried");
  });

  it("a fetch the caller gives is the one that goes to GitHub, bounded", async () => {
    const calls: { init?: RequestInit }[] = [];
    const Bound = boundOctokit(ProbotOctokit, {
      timeoutMs: 30,
      fetch: failingFetch(new Error("not this one")),
    });
    const octokit = new Bound({
      auth: "test-token",
      throttle: { enabled: false },
      request: { fetch: silentFetch(calls) },
    });
    const error = await failureOf(octokit.rest.repos.get(repo));
    assert.match(error.message, /GitHub did not answer within 0\.03 s/);
    assert.equal(calls.length, 1);
  });

  it("a fetch that is bound already is not wrapped a second time", async () => {
    const inner = boundGitHubFetch({ timeoutMs: 30, fetch: silentFetch() });
    const Bound = boundOctokit(ProbotOctokit, { timeoutMs: 5_000 });
    const octokit = new Bound({
      auth: "test-token",
      throttle: { enabled: false },
      request: { fetch: inner },
    });
    const error = await failureOf(octokit.rest.repos.get(repo));
    assert.match(error.message, /GitHub did not answer within 0\.03 s/);
  });

  it("keeps the options it is given: the Enterprise server's URL and the global fetch", async () => {
    gh = mockGitHub({ baseUrl: "https://ghe.example/api/v3" });
    gh.api.get("/api/v3/repos/octo/repo").reply(200, { id: 1, name: "repo", default_branch: "trunk" });
    const Bound = boundOctokit(ProbotOctokit, { timeoutMs: 5_000 });
    const octokit = new Bound({
      auth: "test-token",
      baseUrl: "https://ghe.example/api/v3",
      throttle: { enabled: false },
      request: { retries: 0 },
    });
    const { data } = await octokit.rest.repos.get(repo);
    assert.equal(data.default_branch, "trunk");
    gh.done();
  });
});

describe("UnthrottledOctokit (LOOM_GITHUB_THROTTLE=off)", () => {
  it("leaves a rate limit to loom: no wait, no retry, and the given options are kept", async () => {
    gh = mockGitHub({ baseUrl: "https://ghe.example/api/v3" });
    gh.api
      .post("/api/v3/repos/octo/repo/labels")
      .reply(403, { message: "You have exceeded a secondary rate limit." }, { "retry-after": "1" });
    const octokit = new UnthrottledOctokit({
      auth: "test-token",
      baseUrl: "https://ghe.example/api/v3",
      retry: { enabled: false },
      throttle: { id: "4242", retryAfterBaseValue: 1 },
    });
    await assert.rejects(
      octokit.rest.issues.createLabel({ owner: "octo", repo: "repo", name: "x", color: "ededed" }),
      { status: 403 },
    );
    assert.equal(gh.requests.length, 1);
    gh.done();
  });
});
