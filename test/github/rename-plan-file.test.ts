import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { executeEffect } from "../../app/github/execute-effect.ts";
import type { EffectError } from "../../app/github/effect-context.ts";
import type { Effect } from "../../src/orchestrator/effects.ts";
import { mockGitHub } from "../support/github-mock.ts";
import type { GitHubMock } from "../support/github-mock.ts";
import { HEAD_SHA, makeDiamond, T0 } from "../status/make-plan-state.ts";
import { makeContext } from "./make-context.ts";

const AT = T0 + 600_000;
const BLOB = "b".repeat(40);
const TREE = "c".repeat(40);
const NEW_TREE = "d".repeat(40);
const COMMIT = "e".repeat(40);
const GET_COMMIT = `/repos/octo/repo/git/commits/${HEAD_SHA}`;
const TREES = "/repos/octo/repo/git/trees";
const COMMITS = "/repos/octo/repo/git/commits";
const HEAD_REF = "/repos/octo/repo/git/refs/heads%2Ffeature%2Fdemo";

const start: Effect = { type: "renamePlanFile", key: "k:rename:start", prefix: "IN_PROGRESS-" };
const done: Effect = { type: "renamePlanFile", key: "k:rename:done", prefix: "DONE-" };

let gh: GitHubMock | undefined;
afterEach(() => gh?.cleanup());

/** The four answers of a rename that goes through, up to the ref update. */
function mockCommit(mock: GitHubMock): void {
  mock.api.get(GET_COMMIT).reply(200, { sha: HEAD_SHA, tree: { sha: TREE } });
  mock.api.post(TREES).reply(201, { sha: NEW_TREE });
  mock.api.post(COMMITS).reply(201, { sha: COMMIT });
}

describe("renaming the plan file on the pull request's branch", () => {
  it("moves the plan's blob in one commit on the head loom knows, fast-forward only, and reports the new path", async () => {
    gh = mockGitHub();
    mockCommit(gh);
    gh.api.patch(HEAD_REF).reply(200, {});
    const ctx = makeContext(makeDiamond());
    const events = await executeEffect(ctx, start);
    assert.deepEqual(events, [
      {
        type: "planFile.renamed",
        at: AT,
        path: "doc/plans/IN_PROGRESS-PLAN-demo.md",
        sha: COMMIT,
        parent: HEAD_SHA,
        tree: NEW_TREE,
      },
    ]);
    assert.deepEqual(gh.find("POST", TREES)[0]?.body, {
      base_tree: TREE,
      tree: [
        { path: "doc/plans/IN_PROGRESS-PLAN-demo.md", mode: "100644", type: "blob", sha: BLOB },
        { path: "doc/plans/PLAN-demo.md", mode: "100644", type: "blob", sha: null },
      ],
    });
    assert.deepEqual(gh.find("POST", COMMITS)[0]?.body, {
      message: "loom: started PLAN-demo: doc/plans/PLAN-demo.md → doc/plans/IN_PROGRESS-PLAN-demo.md",
      tree: NEW_TREE,
      parents: [HEAD_SHA],
    });
    assert.deepEqual(gh.find("PATCH", HEAD_REF)[0]?.body, { sha: COMMIT, force: false });
    assert.equal(ctx.calls?.by.renamePlanFile, 4);
    assert.deepEqual(ctx.lines, [
      {
        level: "info",
        data: { from: "doc/plans/PLAN-demo.md", to: "doc/plans/IN_PROGRESS-PLAN-demo.md", sha: COMMIT },
        message: "plan file renamed",
      },
    ]);
    gh.done();
  });

  it("on a head loom made (its merge's answer named the tree), the commit is not read: 3 requests", async () => {
    gh = mockGitHub();
    gh.api.post(TREES).reply(201, { sha: NEW_TREE });
    gh.api.post(COMMITS).reply(201, { sha: COMMIT });
    gh.api.patch(HEAD_REF).reply(200, {});
    const state = makeDiamond();
    state.pr = { ...state.pr, headTree: "e".repeat(40) };
    const ctx = makeContext(state);
    const [event] = await executeEffect(ctx, done);
    assert.equal(event?.type, "planFile.renamed");
    assert.equal((gh.find("POST", TREES)[0]?.body as { base_tree?: string }).base_tree, "e".repeat(40));
    assert.equal(ctx.calls?.by.renamePlanFile, 3);
    gh.done();
  });

  it("a plan whose every stage is done is renamed from its current name, saying so", async () => {
    gh = mockGitHub();
    mockCommit(gh);
    gh.api.patch(HEAD_REF).reply(200, {});
    const state = { ...makeDiamond(), planFile: "doc/plans/IN_PROGRESS-PLAN-demo.md" };
    const events = await executeEffect(makeContext(state), done);
    assert.equal((events[0] as { path?: string }).path, "doc/plans/DONE-PLAN-demo.md");
    assert.equal(
      (gh.find("POST", COMMITS)[0]?.body as { message: string }).message,
      "loom: every stage of PLAN-demo is done: doc/plans/IN_PROGRESS-PLAN-demo.md → doc/plans/DONE-PLAN-demo.md",
    );
    assert.deepEqual(
      (gh.find("POST", TREES)[0]?.body as { tree: { path: string }[] }).tree.map((entry) => entry.path),
      ["doc/plans/DONE-PLAN-demo.md", "doc/plans/IN_PROGRESS-PLAN-demo.md"],
    );
    gh.done();
  });

  it("a file that already has the name, or a closed plan, is left alone: no request", async () => {
    gh = mockGitHub();
    const named = { ...makeDiamond(), planFile: "doc/plans/IN_PROGRESS-PLAN-demo.md" };
    assert.deepEqual(await executeEffect(makeContext(named), start), []);
    const closed = { ...makeDiamond(), closed: true };
    assert.deepEqual(await executeEffect(makeContext(closed), start), []);
    assert.equal(gh.requests.length, 0);
    gh.done();
  });

  it("a push loom has not seen yet is never overwritten: the rename is tried again on the new head", async () => {
    gh = mockGitHub();
    mockCommit(gh);
    gh.api.patch(HEAD_REF).reply(422, { message: "Update is not a fast forward" });
    await assert.rejects(
      executeEffect(makeContext(makeDiamond(), { attempt: 1 }), start),
      (error: EffectError) => {
        assert.equal(error.retryable, true);
        assert.equal(error.status, 422);
        assert.equal(
          error.message,
          "renaming doc/plans/PLAN-demo.md: the pull request's branch moved past aaaaaaa",
        );
        return true;
      },
    );
    gh.done();
  });

  it("at the last attempt a rename that still fails is given up with the reason: the plan goes on", async () => {
    gh = mockGitHub();
    mockCommit(gh);
    gh.api.patch(HEAD_REF).reply(422, { message: "Update is not a fast forward" });
    const events = await executeEffect(makeContext(makeDiamond(), { attempt: 5 }), start);
    assert.deepEqual(events, [
      {
        type: "planFile.renameFailed",
        at: AT,
        reason: "renaming doc/plans/PLAN-demo.md: the pull request's branch moved past aaaaaaa",
      },
    ]);
    gh.done();
  });

  it("one attempt before the last, a retryable failure is still tried again", async () => {
    gh = mockGitHub();
    gh.api.get(GET_COMMIT).reply(502, { message: "Bad Gateway" });
    await assert.rejects(executeEffect(makeContext(makeDiamond(), { attempt: 4 }), start), {
      retryable: true,
      message: "renaming doc/plans/PLAN-demo.md to doc/plans/IN_PROGRESS-PLAN-demo.md: 502 Bad Gateway",
    });
    gh.done();
  });

  it("a rename GitHub refuses (no permission to push) is given up at once with GitHub's reason", async () => {
    gh = mockGitHub();
    gh.api.get(GET_COMMIT).reply(200, { sha: HEAD_SHA, tree: { sha: TREE } });
    gh.api.post(TREES).reply(403, { message: "Resource not accessible by integration" });
    const events = await executeEffect(makeContext(makeDiamond(), { attempt: 1 }), start);
    assert.deepEqual(events, [
      {
        type: "planFile.renameFailed",
        at: AT,
        reason:
          "renaming doc/plans/PLAN-demo.md to doc/plans/IN_PROGRESS-PLAN-demo.md: 403 Resource not accessible by integration",
      },
    ]);
    assert.equal(gh.find("POST", COMMITS).length, 0);
    gh.done();
  });

  it("a ref update refused otherwise is given up with GitHub's reason, not taken for a moved branch", async () => {
    gh = mockGitHub();
    mockCommit(gh);
    gh.api.patch(HEAD_REF).reply(403, { message: "Protected branch update failed" });
    const events = await executeEffect(makeContext(makeDiamond()), start);
    assert.deepEqual(events, [
      {
        type: "planFile.renameFailed",
        at: AT,
        reason:
          "renaming doc/plans/PLAN-demo.md to doc/plans/IN_PROGRESS-PLAN-demo.md: 403 Protected branch update failed",
      },
    ]);
    gh.done();
  });

  it("a first claim (no attempt number) that fails retryably is tried again", async () => {
    gh = mockGitHub();
    mockCommit(gh);
    gh.api.patch(HEAD_REF).reply(500, { message: "Server Error" });
    await assert.rejects(executeEffect(makeContext(makeDiamond()), start), { retryable: true, status: 500 });
    gh.done();
  });
});
