import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { executeEffect } from "../../app/github/execute-effect.ts";
import { mockGitHub } from "../support/github-mock.ts";
import type { GitHubMock } from "../support/github-mock.ts";
import { makeDiamond } from "../status/make-plan-state.ts";
import { makeContext } from "./make-context.ts";

const STAGE_REF = "/repos/octo/repo/git/ref/heads%2Floom%2Fpr-7%2FPLAN-demo%2Fa";
const BASE_REF = "/repos/octo/repo/git/ref/heads%2Ffeature%2Fdemo";
const SHA = "e".repeat(40);
const create = {
  type: "createBranch",
  key: "k:a:branch",
  stageId: "a",
  branch: "loom/pr-7/PLAN-demo/a",
  from: "feature/demo",
} as const;

let gh: GitHubMock | undefined;
afterEach(() => gh?.cleanup());

test("the stage branch is created at the merge point's current head", async () => {
  gh = mockGitHub();
  gh.api.get(STAGE_REF).reply(404, { message: "Not Found" });
  gh.api.get(BASE_REF).reply(200, { ref: "refs/heads/feature/demo", object: { sha: SHA, type: "commit" } });
  gh.api
    .post("/repos/octo/repo/git/refs", { ref: "refs/heads/loom/pr-7/PLAN-demo/a", sha: SHA })
    .reply(201, {});
  assert.deepEqual(await executeEffect(makeContext(makeDiamond()), create), []);
  gh.done();
});

test("an existing stage branch is kept: nothing is created", async () => {
  gh = mockGitHub();
  gh.api
    .get(STAGE_REF)
    .reply(200, { ref: "refs/heads/loom/pr-7/PLAN-demo/a", object: { sha: SHA, type: "commit" } });
  assert.deepEqual(await executeEffect(makeContext(makeDiamond()), create), []);
  assert.equal(gh.find("POST", "/repos/octo/repo/git/refs").length, 0);
  gh.done();
});

test("a branch created meanwhile by someone else (422 Reference already exists) is fine", async () => {
  gh = mockGitHub();
  gh.api.get(STAGE_REF).reply(404, { message: "Not Found" });
  gh.api.get(BASE_REF).reply(200, { ref: "refs/heads/feature/demo", object: { sha: SHA, type: "commit" } });
  gh.api.post("/repos/octo/repo/git/refs").reply(422, { message: "Reference already exists" });
  gh.api
    .get(STAGE_REF)
    .reply(200, { ref: "refs/heads/loom/pr-7/PLAN-demo/a", object: { sha: SHA, type: "commit" } });
  assert.deepEqual(await executeEffect(makeContext(makeDiamond()), create), []);
  gh.done();
});

test("a re-run of a completed stage moves its branch to the merge point's head (2 requests), or creates it there when gone", async () => {
  const reset = { ...create, reset: true } as const;
  const PATCH_REF = "/repos/octo/repo/git/refs/heads%2Floom%2Fpr-7%2FPLAN-demo%2Fa";
  gh = mockGitHub();
  gh.api.get(BASE_REF).reply(200, { ref: "refs/heads/feature/demo", object: { sha: SHA, type: "commit" } });
  gh.api.patch(PATCH_REF, { sha: SHA, force: true }).reply(200, {
    ref: "refs/heads/loom/pr-7/PLAN-demo/a",
    node_id: "R",
    url: "https://api.github.com/repos/octo/repo/git/refs/heads/loom/pr-7/PLAN-demo/a",
    object: { sha: SHA, type: "commit", url: "https://api.github.com/x" },
  });
  assert.deepEqual(await executeEffect(makeContext(makeDiamond()), reset), []);
  gh.done();
  gh.cleanup();

  gh = mockGitHub();
  gh.api.get(BASE_REF).reply(200, { ref: "refs/heads/feature/demo", object: { sha: SHA, type: "commit" } });
  gh.api.patch(PATCH_REF).reply(422, { message: "Reference does not exist" });
  gh.api
    .post("/repos/octo/repo/git/refs", { ref: "refs/heads/loom/pr-7/PLAN-demo/a", sha: SHA })
    .reply(201, {});
  assert.deepEqual(await executeEffect(makeContext(makeDiamond()), reset), []);
  gh.done();
});

test("a missing merge point is an error that is not retried", async () => {
  gh = mockGitHub();
  gh.api.get(STAGE_REF).reply(404, { message: "Not Found" });
  gh.api.get(BASE_REF).reply(404, { message: "Not Found" });
  await assert.rejects(
    executeEffect(makeContext(makeDiamond()), create),
    (e: Error & { retryable: boolean }) => !e.retryable,
  );
  gh.done();
});

test("cancelling a run that already finished (409) is fine", async () => {
  gh = mockGitHub();
  gh.api
    .post("/repos/octo/repo/actions/runs/55/cancel")
    .reply(409, { message: "Cannot cancel a workflow run that is completed." });
  assert.deepEqual(
    await executeEffect(makeContext(makeDiamond()), { type: "cancelRun", key: "k", stageId: "a", runId: 55 }),
    [],
  );
  gh.done();
});

test("cancelling a running run asks GitHub once", async () => {
  gh = mockGitHub();
  gh.api.post("/repos/octo/repo/actions/runs/56/cancel").reply(202, {});
  assert.deepEqual(
    await executeEffect(makeContext(makeDiamond()), { type: "cancelRun", key: "k", stageId: "a", runId: 56 }),
    [],
  );
  gh.done();
});

test("deleting a stage branch that is already gone is fine, and only loom/ branches are ever deleted", async () => {
  gh = mockGitHub();
  gh.api
    .delete("/repos/octo/repo/git/refs/heads%2Floom%2Fpr-7%2FPLAN-demo%2Fa")
    .reply(422, { message: "Reference does not exist" });
  const ctx = makeContext(makeDiamond());
  assert.deepEqual(
    await executeEffect(ctx, { type: "deleteBranch", key: "k", branch: "loom/pr-7/PLAN-demo/a" }),
    [],
  );
  await assert.rejects(
    executeEffect(ctx, { type: "deleteBranch", key: "k2", branch: "main" }),
    /not a loom stage branch/,
  );
  gh.done();
});

test("deleting an amended stage's branch deletes loom's record of its amendments too (one more request)", async () => {
  gh = mockGitHub();
  gh.api.delete("/repos/octo/repo/git/refs/heads%2Floom%2Fpr-7%2FPLAN-demo%2Fa").reply(204);
  gh.api.delete("/repos/octo/repo/git/refs/loom%2Famend%2Floom%2Fpr-7%2FPLAN-demo%2Fa").reply(404, {});
  const effect = {
    type: "deleteBranch" as const,
    key: "k",
    branch: "loom/pr-7/PLAN-demo/a",
    amendRecord: true as const,
  };
  assert.deepEqual(await executeEffect(makeContext(makeDiamond()), effect), []);
  gh.done();
});

test("a command comment gets a reaction and, with a body, one short reply on the pull request", async () => {
  gh = mockGitHub();
  gh.api.post("/repos/octo/repo/issues/comments/99/reactions", { content: "-1" }).reply(201, {});
  gh.api.post("/repos/octo/repo/issues/7/comments").reply(201, { id: 1 });
  const ctx = makeContext(makeDiamond());
  const source = { kind: "comment", commentId: 99 } as const;
  await executeEffect(ctx, {
    type: "reply",
    key: "k:reply",
    source,
    reaction: "-1",
    body: "Unknown stage `x`. Stages: a, b, c, d.",
  });
  assert.match(
    String((gh.find("POST", "/repos/octo/repo/issues/7/comments")[0]?.body as { body: string }).body),
    /Unknown stage/,
  );
  gh.done();
});

test("a button press gets no reaction (there is no comment), and nothing at all without a body", async () => {
  gh = mockGitHub();
  const source = { kind: "check-run-button", checkRunId: 5 } as const;
  assert.deepEqual(
    await executeEffect(makeContext(makeDiamond()), {
      type: "reply",
      key: "k",
      source,
      reaction: "+1",
      body: null,
    }),
    [],
  );
  assert.equal(gh.requests.length, 0);
  gh.done();
});

test("setTimer makes no GitHub call", async () => {
  gh = mockGitHub();
  assert.deepEqual(
    await executeEffect(makeContext(makeDiamond()), { type: "setTimer", key: "t", at: 1 }),
    [],
  );
  gh.done();
});
