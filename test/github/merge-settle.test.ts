import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { executeEffect } from "../../app/github/execute-effect.ts";
import { MERGE_TRIES } from "../../app/github/merge-branch.ts";
import type { Effect } from "../../src/orchestrator/effects.ts";
import { mockGitHub } from "../support/github-mock.ts";
import type { GitHubMock } from "../support/github-mock.ts";
import { makeDiamond, T0 } from "../status/make-plan-state.ts";
import { makeContext } from "./make-context.ts";

/*
 * A merge whose answer was lost (5xx): the repository decides whether it happened. And the
 * wording of each merge outcome the stage's check run shows.
 */

const MERGE = "/repos/octo/repo/merges";
const BASE_REF = "/repos/octo/repo/git/ref/heads%2Ffeature%2Fdemo";
const STAGE_REF = "/repos/octo/repo/git/ref/heads%2Floom%2Fpr-7%2FPLAN-demo%2Fa";
const BASE = "c".repeat(40);
const CHECKED = "d".repeat(40);
const AT = T0 + 600_000;
const byName: Effect = {
  type: "mergeBranch",
  key: "k:a:merge",
  stageId: "a",
  head: "loom/pr-7/PLAN-demo/a",
  base: "feature/demo",
  message: "loom: merge stage a",
};
const bySha: Effect = { ...byName, sha: CHECKED };
const compare = (from: string, to: string) => `/repos/octo/repo/compare/${from}...${to}`;
const ref = (name: string, sha: string) => ({ ref: `refs/heads/${name}`, object: { sha, type: "commit" } });
const finished = (outcome: string, detail: string, sha?: string) => [
  { type: "merge.finished", at: AT, stageId: "a", outcome, ...(sha ? { sha } : {}), detail },
];

let gh: GitHubMock | undefined;
afterEach(() => gh?.cleanup());

describe("a merge whose answer was lost", () => {
  it("a merge point that is gone is an error saying so", async () => {
    gh = mockGitHub();
    gh.api.post(MERGE).reply(502, { message: "Bad Gateway" });
    gh.api.get(BASE_REF).reply(404, { message: "Not Found" });
    assert.deepEqual(
      await executeEffect(makeContext(makeDiamond()), byName),
      finished("error", "feature/demo is gone (502: Bad Gateway)"),
    );
    gh.done();
  });

  it("by branch name: the stage branch's tip on the merge point means merged, but the head is not claimed as loom's merge", async () => {
    gh = mockGitHub();
    gh.api.post(MERGE).reply(503, { message: "Unavailable" });
    gh.api.get(BASE_REF).reply(200, ref("feature/demo", BASE));
    gh.api.get(STAGE_REF).reply(200, ref("loom/pr-7/PLAN-demo/a", CHECKED));
    gh.api.get(compare(CHECKED, BASE)).query({ per_page: "1" }).reply(200, { status: "identical" });
    gh.api
      .get(`/repos/octo/repo/commits/${BASE}`)
      .reply(200, { sha: BASE, parents: [{ sha: CHECKED }, { sha: "e".repeat(40) }] });
    const ctx = makeContext(makeDiamond());
    assert.deepEqual(
      await executeEffect(ctx, byName),
      finished(
        "merged",
        "merged loom/pr-7/PLAN-demo/a into feature/demo (GitHub's answer was lost: 503: Unavailable)",
      ),
    );
    assert.ok(ctx.lines.some((line) => line.level === "warn" && /answer lost/.test(line.message)));
    gh.done();
  });

  it("a merge whose connection dropped (no answer at all) is settled the same way: the repository decides", async () => {
    gh = mockGitHub();
    gh.api.get(STAGE_REF).reply(200, ref("loom/pr-7/PLAN-demo/a", CHECKED));
    gh.api.post(MERGE).replyWithError("socket hang up");
    gh.api.get(BASE_REF).reply(200, ref("feature/demo", BASE));
    gh.api.get(compare(CHECKED, BASE)).query({ per_page: "1" }).reply(200, { status: "ahead" });
    gh.api
      .get(`/repos/octo/repo/commits/${BASE}`)
      .reply(200, { sha: BASE, parents: [{ sha: "f".repeat(40) }, { sha: CHECKED }] });
    const [event] = await executeEffect(makeContext(makeDiamond()), bySha);
    assert.equal(event?.type, "merge.finished");
    assert.deepEqual(
      event?.type === "merge.finished"
        ? [event.outcome, event.sha, /answer was lost/.test(event.detail)]
        : [],
      ["merged", BASE, true],
    );
    gh.done();
  });

  it("a merge point at the very commit needs no comparison", async () => {
    gh = mockGitHub();
    gh.api.get(STAGE_REF).reply(200, ref("loom/pr-7/PLAN-demo/a", CHECKED));
    gh.api.post(MERGE).reply(500, { message: "Server Error" });
    gh.api.get(BASE_REF).reply(200, ref("feature/demo", CHECKED));
    gh.api.get(`/repos/octo/repo/commits/${CHECKED}`).reply(200, { sha: CHECKED, parents: [{ sha: BASE }] });
    const events = await executeEffect(makeContext(makeDiamond()), bySha);
    assert.equal((events[0] as { outcome?: string }).outcome, "merged");
    assert.equal(gh.find("GET", "/repos/octo/repo/compare").length, 0);
    gh.done();
  });

  it("a merge point behind the commit is not merged: tried again before the last try", async () => {
    gh = mockGitHub();
    gh.api.get(STAGE_REF).reply(200, ref("loom/pr-7/PLAN-demo/a", CHECKED));
    gh.api.post(MERGE).reply(500, { message: "Server Error" });
    gh.api.get(BASE_REF).reply(200, ref("feature/demo", BASE));
    gh.api.get(compare(CHECKED, BASE)).query({ per_page: "1" }).reply(200, { status: "behind" });
    await assert.rejects(executeEffect(makeContext(makeDiamond(), { attempt: MERGE_TRIES - 1 }), bySha), {
      retryable: true,
      status: null,
      message: `merging ${CHECKED} into feature/demo: not merged (500: Server Error); trying again`,
    });
    gh.done();
  });

  it("a stage branch deleted meanwhile is not merged either", async () => {
    gh = mockGitHub();
    gh.api.post(MERGE).reply(500, { message: "Server Error" });
    gh.api.get(BASE_REF).reply(200, ref("feature/demo", BASE));
    gh.api.get(STAGE_REF).reply(404, { message: "Not Found" });
    assert.deepEqual(
      await executeEffect(makeContext(makeDiamond(), { attempt: MERGE_TRIES }), byName),
      finished("error", "GitHub did not merge after 4 tries (500: Server Error)"),
    );
    gh.done();
  });

  it("a comparison or commit GitHub cannot give now is tried again, naming what failed", async () => {
    gh = mockGitHub();
    gh.api.get(STAGE_REF).reply(200, ref("loom/pr-7/PLAN-demo/a", CHECKED));
    gh.api.post(MERGE).reply(500, { message: "Server Error" });
    gh.api.get(BASE_REF).reply(200, ref("feature/demo", BASE));
    gh.api.get(compare(CHECKED, BASE)).query({ per_page: "1" }).reply(502, { message: "Bad Gateway" });
    await assert.rejects(executeEffect(makeContext(makeDiamond(), { attempt: MERGE_TRIES }), bySha), {
      retryable: true,
      message: `comparing ${CHECKED} with feature/demo: 502 Bad Gateway`,
    });
    gh.api.get(STAGE_REF).reply(200, ref("loom/pr-7/PLAN-demo/a", CHECKED));
    gh.api.post(MERGE).reply(500, { message: "Server Error" });
    gh.api.get(BASE_REF).reply(200, ref("feature/demo", BASE));
    gh.api.get(compare(CHECKED, BASE)).query({ per_page: "1" }).reply(200, { status: "ahead" });
    gh.api.get(`/repos/octo/repo/commits/${BASE}`).reply(503, { message: "Unavailable" });
    await assert.rejects(executeEffect(makeContext(makeDiamond(), { attempt: MERGE_TRIES }), bySha), {
      retryable: true,
      message: `reading commit ${BASE}: 503 Unavailable`,
    });
    gh.done();
  });
});

describe("what a merge outcome says", () => {
  it("merged, by SHA, says which branch went into which", async () => {
    gh = mockGitHub();
    gh.api.get(STAGE_REF).reply(200, ref("loom/pr-7/PLAN-demo/a", CHECKED));
    gh.api.post(MERGE).reply(201, { sha: "f".repeat(40), parents: [] });
    const events = await executeEffect(makeContext(makeDiamond()), bySha);
    assert.equal((events[0] as { detail?: string }).detail, "merged loom/pr-7/PLAN-demo/a into feature/demo");
    assert.deepEqual(gh.find("POST", MERGE)[0]?.body, {
      base: "feature/demo",
      head: CHECKED,
      commit_message: "loom: merge stage a",
    });
    gh.done();
  });

  it("nothing to merge names the commit; a conflict and a refusal carry GitHub's words", async () => {
    gh = mockGitHub();
    gh.api.post(MERGE).reply(204);
    gh.api.post(MERGE).reply(409, { message: "Merge conflict" });
    gh.api.post(MERGE).reply(422, { message: "Validation Failed" });
    const ctx = makeContext(makeDiamond());
    assert.deepEqual(
      await executeEffect(ctx, byName),
      finished("nothing-to-merge", "feature/demo already contains loom/pr-7/PLAN-demo/a"),
    );
    assert.deepEqual(
      await executeEffect(ctx, byName),
      finished("conflict", "merge conflict: Merge conflict"),
    );
    assert.deepEqual(
      await executeEffect(ctx, byName),
      finished("error", "GitHub refused the merge (422): Validation Failed"),
    );
    assert.deepEqual(
      ctx.lines.map((line) => [line.message, (line.data as { outcome: string }).outcome]),
      [
        ["merge finished", "nothing-to-merge"],
        ["merge finished", "conflict"],
        ["merge finished", "error"],
      ],
    );
    gh.done();
  });

  it("a stage branch deleted after its checks is not merged, saying so", async () => {
    gh = mockGitHub();
    gh.api.get(STAGE_REF).reply(404, { message: "Not Found" });
    assert.deepEqual(
      await executeEffect(makeContext(makeDiamond()), bySha),
      finished(
        "branch-moved",
        "the stage branch loom/pr-7/PLAN-demo/a was deleted after the checks ran on ddddddd",
      ).map((event) => ({ ...event, branchGone: true })),
    );
    assert.equal(gh.find("POST", MERGE).length, 0);
    gh.done();
  });
});
