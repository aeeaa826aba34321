import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { pacedOctokit } from "../../app/github/paced-octokit.ts";
import type { RedisEval, WriteLimiter } from "../../app/github/write-limiter.ts";
import { WriteLimitWaitError } from "../../app/github/write-limiter.ts";
import { mockGitHub } from "../support/github-mock.ts";
import type { GitHubMock } from "../support/github-mock.ts";

/*
 * LOOM_GITHUB_THROTTLE=on without an emulator: which requests wait for a write slot of which
 * installation, what a secondary rate limit does to the installation's writes, and when the
 * request is tried again. `retryAfterBaseValue: 1` makes the plugin wait `retry-after` ms, not s.
 */

const LABELS = "/repos/octo/repo/labels";
const COMMENTS = "/repos/octo/repo/issues/7/comments";
const label = { owner: "octo", repo: "repo", name: "loom:skip", color: "ededed" };
const created = { id: 1, node_id: "x", url: "u", name: "loom:skip", color: "ededed", default: false };
const secondaryLimit = (retryAfter: number) =>
  [
    403,
    { message: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again." },
    { "retry-after": String(retryAfter) },
  ] as const;

/** A limiter that records what it was asked. */
function recordingLimiter(): WriteLimiter & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    acquire: (key) => {
      asked.push(`acquire ${key}`);
      return Promise.resolve();
    },
    pause: (key, ms) => {
      asked.push(`pause ${key} ${ms}`);
      return Promise.resolve();
    },
  };
}

/** A client as Probot builds one for an installation (its id as a string). */
function client(
  Octokit: ReturnType<typeof pacedOctokit>,
  throttle: Record<string, unknown> = { id: "4242" },
) {
  return new Octokit({
    auth: "test-token",
    retry: { enabled: false },
    throttle: { retryAfterBaseValue: 1, ...throttle },
  });
}

let gh: GitHubMock | undefined;
afterEach(() => gh?.cleanup());

describe("pacedOctokit (LOOM_GITHUB_THROTTLE=on)", () => {
  it("every write waits for a slot of its installation; reads do not", async () => {
    gh = mockGitHub();
    gh.api.post(LABELS).reply(201, created);
    gh.api.get("/repos/octo/repo/labels/loom%3Askip").reply(200, created);
    gh.api.delete("/repos/octo/repo/labels/loom%3Askip").reply(204);
    const limiter = recordingLimiter();
    const octokit = client(pacedOctokit({ limiter }));
    await octokit.rest.issues.createLabel(label);
    await octokit.rest.issues.getLabel({ owner: "octo", repo: "repo", name: "loom:skip" });
    await octokit.rest.issues.deleteLabel({ owner: "octo", repo: "repo", name: "loom:skip" });
    assert.deepEqual(limiter.asked, ["acquire 4242", "acquire 4242"]);
    gh.done();
  });

  for (const c of [
    { what: "as a number", id: 77, key: "77" },
    { what: "missing", id: undefined, key: "no-id" },
    { what: "of another type", id: true, key: "no-id" },
  ])
    it(`a secondary rate limit pauses the installation named by its id ${c.what} (${c.key})`, async () => {
      gh = mockGitHub();
      gh.api.post(LABELS).reply(...secondaryLimit(1));
      gh.api.post(LABELS).reply(201, created);
      const limiter = recordingLimiter();
      await client(pacedOctokit({ limiter }), { id: c.id }).rest.issues.createLabel(label);
      assert.ok(limiter.asked.includes(`pause ${c.key} 1000`), limiter.asked.join(", "));
      gh.done();
    });

  it("a client built with throttling off is not paced at all", async () => {
    gh = mockGitHub();
    gh.api.post(LABELS).reply(...secondaryLimit(1));
    const limiter = recordingLimiter();
    await assert.rejects(
      client(pacedOctokit({ limiter }), { enabled: false }).rest.issues.createLabel(label),
      {
        status: 403,
      },
    );
    assert.deepEqual(limiter.asked, [], "no slot taken, no pause, no retry");
    gh.done();
  });

  it("comments get no spacing of their own: two in a row go out at once", async () => {
    gh = mockGitHub();
    gh.api.post(COMMENTS).times(2).reply(201, { id: 9, body: "hi" });
    const limiter = recordingLimiter();
    const octokit = client(pacedOctokit({ limiter }));
    const started = Date.now();
    await octokit.rest.issues.createComment({ owner: "octo", repo: "repo", issue_number: 7, body: "a" });
    await octokit.rest.issues.createComment({ owner: "octo", repo: "repo", issue_number: 7, body: "b" });
    // Octokit's own pacing would hold the second comment 3 s.
    assert.ok(Date.now() - started < 2_000, `took ${Date.now() - started} ms`);
    assert.deepEqual(limiter.asked, ["acquire 4242", "acquire 4242"]);
    gh.done();
  });

  it("a secondary rate limit pauses the installation's writes for retry-after, then the write is retried and lands", async () => {
    gh = mockGitHub();
    gh.api.post(LABELS).reply(...secondaryLimit(3));
    gh.api.post(LABELS).reply(201, created);
    const limiter = recordingLimiter();
    const response = await client(pacedOctokit({ limiter })).rest.issues.createLabel(label);
    assert.equal(response.status, 201);
    assert.deepEqual(limiter.asked, ["acquire 4242", "pause 4242 3000", "acquire 4242"]);
    gh.done();
  });

  it("a write refused again and again is tried 3 times in all, then fails", async () => {
    gh = mockGitHub();
    gh.api
      .post(LABELS)
      .times(3)
      .reply(...secondaryLimit(1));
    const limiter = recordingLimiter();
    await assert.rejects(client(pacedOctokit({ limiter })).rest.issues.createLabel(label), { status: 403 });
    assert.equal(gh.find("POST", LABELS).length, 3);
    gh.done();
  });

  it("a retry-after that fits in the request (62 s) is waited in it; a longer one fails the request", async () => {
    gh = mockGitHub();
    gh.api.post(LABELS).reply(...secondaryLimit(62));
    gh.api.post(LABELS).reply(201, created);
    gh.api.post(LABELS).reply(...secondaryLimit(63));
    const limiter = recordingLimiter();
    const Paced = pacedOctokit({ limiter });
    assert.equal((await client(Paced).rest.issues.createLabel(label)).status, 201);
    await assert.rejects(client(Paced).rest.issues.createLabel(label), { status: 403 });
    assert.equal(gh.find("POST", LABELS).length, 3);
    assert.deepEqual(limiter.asked.at(-1), "pause 4242 63000");
    gh.done();
  });

  it("without a limiter given, the pause GitHub asked for holds every client of the installation (one limiter in memory)", async () => {
    gh = mockGitHub();
    gh.api.post(LABELS).reply(...secondaryLimit(120));
    gh.api.post(LABELS).reply(201, created);
    const Paced = pacedOctokit();
    await assert.rejects(client(Paced).rest.issues.createLabel(label), { status: 403 });
    // The next write of the same installation, from another client, would wait 2 minutes: refused.
    await assert.rejects(client(Paced).rest.issues.createLabel(label), (error: unknown) => {
      assert.ok(findWriteLimitWaitIn(error), String(error));
      return true;
    });
    // Another installation writes on.
    assert.equal((await client(Paced, { id: "5" }).rest.issues.createLabel(label)).status, 201);
    gh.done();
  });

  it("with Probot's Redis connection, the installation's budget lives in Redis", async () => {
    gh = mockGitHub();
    gh.api.post(LABELS).times(2).reply(201, created);
    const keys: string[] = [];
    const redis: RedisEval = {
      eval: (_script, count, ...args) => {
        keys.push(...args.slice(0, count).map(String));
        return Promise.resolve(0);
      },
    };
    const Paced = pacedOctokit();
    await client(Paced, { id: "4242", connection: { client: redis } }).rest.issues.createLabel(label);
    await client(Paced, { id: "4242", connection: { client: redis } }).rest.issues.createLabel(label);
    assert.deepEqual(keys, [
      "loom:github-writes:4242",
      "loom:github-writes:4242:paused",
      "loom:github-writes:4242",
      "loom:github-writes:4242:paused",
    ]);
    gh.done();
  });
});

function findWriteLimitWaitIn(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++)
    if (e instanceof WriteLimitWaitError) return true;
  return false;
}
