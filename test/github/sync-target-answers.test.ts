import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { executeEffect } from "../../app/github/execute-effect.ts";
import type { Effect } from "../../src/orchestrator/effects.ts";
import { mockGitHub } from "../support/github-mock.ts";
import type { GitHubMock } from "../support/github-mock.ts";
import { makeDiamond, T0 } from "../status/make-plan-state.ts";
import { makeContext, makeRetryingOctokit } from "./make-context.ts";

/*
 * `syncTarget` against each answer GitHub may give (the emulator test covers the happy paths on
 * real git): which outcome the plan is told, what is tried again, and what is never retried blindly.
 */

const TARGET = "loom/pr-1/result/PLAN-demo";
const TARGET_REF = "/repos/octo/repo/git/ref/heads%2Floom%2Fpr-1%2Fresult%2FPLAN-demo";
const REFS = "/repos/octo/repo/git/refs";
const MERGES = "/repos/octo/repo/merges";
const SHA = "1234567".padEnd(40, "0");
const OTHER = "9".repeat(40);
const AT = T0 + 600_000;
const effect: Effect = { type: "syncTarget", key: "k:sync", branch: TARGET, sha: SHA };
const synced = (outcome: string, detail: string) => [
  { type: "target.synced", at: AT, sha: SHA, outcome, detail },
];
const ref = (sha: string) => ({ ref: `refs/heads/${TARGET}`, object: { sha, type: "commit" } });

let gh: GitHubMock | undefined;
afterEach(() => gh?.cleanup());

describe("syncTarget, answer by answer", () => {
  it("a missing result branch is created at the head, and the plan is told where", async () => {
    gh = mockGitHub();
    gh.api.get(TARGET_REF).reply(404, { message: "Not Found" });
    gh.api.post(REFS).reply(201, ref(SHA));
    const ctx = makeContext(makeDiamond());
    assert.deepEqual(await executeEffect(ctx, effect), synced("synced", `created ${TARGET} at 1234567`));
    assert.deepEqual(gh.find("POST", REFS)[0]?.body, { ref: `refs/heads/${TARGET}`, sha: SHA });
    assert.deepEqual(ctx.lines[0], {
      level: "info",
      data: { branch: TARGET, sha: SHA, outcome: "synced" },
      message: "fork head brought into the result branch",
    });
    gh.done();
  });

  it("a result branch already at the head needs nothing", async () => {
    gh = mockGitHub();
    gh.api.get(TARGET_REF).reply(200, ref(SHA));
    assert.deepEqual(
      await executeEffect(makeContext(makeDiamond()), effect),
      synced("synced", `${TARGET} is at 1234567`),
    );
    gh.done();
  });

  it("a result branch someone created meanwhile (422, and it is there) gets the head merged into it", async () => {
    gh = mockGitHub();
    gh.api.get(TARGET_REF).reply(404, { message: "Not Found" });
    gh.api.post(REFS).reply(422, { message: "Reference already exists" });
    gh.api.get(TARGET_REF).reply(200, ref(OTHER));
    gh.api.post(MERGES).reply(201, { sha: "m".repeat(40) });
    assert.deepEqual(
      await executeEffect(makeContext(makeDiamond()), effect),
      synced("synced", `merged 1234567 into ${TARGET}`),
    );
    assert.deepEqual(gh.find("POST", MERGES)[0]?.body, {
      base: TARGET,
      head: SHA,
      commit_message: `loom: bring the pull request's approved head 1234567 into ${TARGET}`,
    });
    gh.done();
  });

  it("a 422 on create with the branch still missing is reported as an error, not merged into", async () => {
    gh = mockGitHub();
    gh.api.get(TARGET_REF).reply(404, { message: "Not Found" });
    gh.api.post(REFS).reply(422, { message: "Object does not exist" });
    gh.api.get(TARGET_REF).reply(404, { message: "Not Found" });
    assert.deepEqual(
      await executeEffect(makeContext(makeDiamond()), effect),
      synced("error", `creating ${TARGET} at 1234567: 422 Object does not exist`),
    );
    assert.equal(gh.find("POST", MERGES).length, 0);
    gh.done();
  });

  it("a head the branch already contains (204) is synced without a new commit", async () => {
    gh = mockGitHub();
    gh.api.get(TARGET_REF).reply(200, ref(OTHER));
    gh.api.post(MERGES).reply(204);
    assert.deepEqual(
      await executeEffect(makeContext(makeDiamond()), effect),
      synced("synced", `${TARGET} already contains 1234567`),
    );
    gh.done();
  });

  it("a merge GitHub refuses (4xx other than a conflict) is an error with GitHub's reason, never retried", async () => {
    gh = mockGitHub();
    gh.api.get(TARGET_REF).reply(200, ref(OTHER));
    gh.api.post(MERGES).reply(403, { message: "Resource not accessible by integration" });
    const ctx = makeContext(makeDiamond(), { octokit: makeRetryingOctokit() });
    assert.deepEqual(
      await executeEffect(ctx, effect),
      synced("error", "GitHub refused the merge (403): Resource not accessible by integration"),
    );
    assert.equal(gh.find("POST", MERGES).length, 1);
    gh.done();
  });

  it("a 499 on the merge is still GitHub's refusal, not an unknown outcome", async () => {
    gh = mockGitHub();
    gh.api.get(TARGET_REF).reply(200, ref(OTHER));
    gh.api.post(MERGES).reply(499, { message: "odd" });
    assert.deepEqual(
      await executeEffect(makeContext(makeDiamond()), effect),
      synced("error", "GitHub refused the merge (499): odd"),
    );
    gh.done();
  });

  it("a merge GitHub did not answer (500) is tried again by the outbox, not by the client", async () => {
    gh = mockGitHub();
    gh.api.get(TARGET_REF).reply(200, ref(OTHER));
    gh.api.post(MERGES).reply(500, { message: "Server Error" });
    const ctx = makeContext(makeDiamond(), { octokit: makeRetryingOctokit(), attempt: 4 });
    await assert.rejects(executeEffect(ctx, effect), {
      retryable: true,
      message: `merging 1234567 into ${TARGET}: 500 Server Error`,
    });
    assert.equal(gh.find("POST", MERGES).length, 1);
    gh.done();
  });

  it("on the last try an unanswered merge is reported as an error, so the plan says why", async () => {
    gh = mockGitHub();
    gh.api.get(TARGET_REF).reply(200, ref(OTHER));
    gh.api.post(MERGES).reply(502, { message: "Bad Gateway" });
    assert.deepEqual(
      await executeEffect(makeContext(makeDiamond(), { attempt: 5 }), effect),
      synced("error", `merging 1234567 into ${TARGET}: 502 Bad Gateway`),
    );
    gh.done();
  });

  it("a branch GitHub cannot read now is tried again on a first claim", async () => {
    gh = mockGitHub();
    gh.api.get(TARGET_REF).reply(503, { message: "Unavailable" });
    await assert.rejects(executeEffect(makeContext(makeDiamond()), effect), {
      retryable: true,
      message: `reading branch ${TARGET}: 503 Unavailable`,
    });
    gh.done();
  });

  it("a create GitHub did not answer is tried again; the same failure on the last try is an error", async () => {
    gh = mockGitHub();
    gh.api.get(TARGET_REF).twice().reply(404, { message: "Not Found" });
    gh.api.post(REFS).twice().reply(500, { message: "Server Error" });
    await assert.rejects(executeEffect(makeContext(makeDiamond(), { attempt: 4 }), effect), {
      retryable: true,
    });
    assert.deepEqual(
      await executeEffect(makeContext(makeDiamond(), { attempt: 5 }), effect),
      synced("error", `creating ${TARGET} at 1234567: 500 Server Error`),
    );
    gh.done();
  });
});
