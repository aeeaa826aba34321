import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { EffectError } from "../../app/github/effect-context.ts";
import { executeEffect } from "../../app/github/execute-effect.ts";
import { MERGE_TRIES } from "../../app/github/merge-branch.ts";
import type { Effect } from "../../src/orchestrator/effects.ts";
import { mockGitHub } from "../support/github-mock.ts";
import type { GitHubMock } from "../support/github-mock.ts";
import { makeDiamond, T0 } from "../status/make-plan-state.ts";
import { makeContext, makeRetryingOctokit } from "./make-context.ts";

const effect: Effect = {
  type: "mergeBranch",
  key: "k:a:merge",
  stageId: "a",
  head: "loom/pr-7/PLAN-demo/a",
  base: "feature/demo",
  message: "loom: merge stage a",
};
const MERGE = "/repos/octo/repo/merges";
const BASE_REF = "/repos/octo/repo/git/ref/heads%2Ffeature%2Fdemo";
const SHA = "c".repeat(40);
const at = T0 + 600_000;

let gh: GitHubMock | undefined;
afterEach(() => gh?.cleanup());

test("a 201 merge is reported merged with its sha (GitHub moved the merge point to it)", async () => {
  gh = mockGitHub();
  gh.api
    .post(MERGE, {
      base: "feature/demo",
      head: "loom/pr-7/PLAN-demo/a",
      commit_message: "loom: merge stage a",
    })
    .reply(201, { sha: SHA });
  const events = await executeEffect(makeContext(makeDiamond()), effect);
  assert.deepEqual(events, [
    {
      type: "merge.finished",
      at,
      stageId: "a",
      outcome: "merged",
      sha: SHA,
      detail: "merged loom/pr-7/PLAN-demo/a into feature/demo",
    },
  ]);
  gh.done();
});

const CHECKED = "e".repeat(40);
const STAGE_REF = "/repos/octo/repo/git/ref/heads%2Floom%2Fpr-7%2FPLAN-demo%2Fa";
const checkedEffect: Effect = { ...effect, sha: CHECKED };

test("with the checked SHA: merges that SHA (not the branch name) while the branch still points at it", async () => {
  gh = mockGitHub();
  gh.api
    .get(STAGE_REF)
    .reply(200, { ref: "refs/heads/loom/pr-7/PLAN-demo/a", object: { sha: CHECKED, type: "commit" } });
  gh.api
    .post(MERGE, { base: "feature/demo", head: CHECKED, commit_message: "loom: merge stage a" })
    .reply(201, {
      sha: SHA,
    });
  const [event] = await executeEffect(makeContext(makeDiamond()), checkedEffect);
  assert.equal(event?.type === "merge.finished" && event.outcome, "merged");
  gh.done();
});

test("a stage branch moved after its checks is not merged: branch-moved, with both SHAs", async () => {
  gh = mockGitHub();
  const pushed = "f".repeat(40);
  gh.api
    .get(STAGE_REF)
    .reply(200, { ref: "refs/heads/loom/pr-7/PLAN-demo/a", object: { sha: pushed, type: "commit" } });
  const [event] = await executeEffect(makeContext(makeDiamond()), checkedEffect);
  assert.equal(event?.type, "merge.finished");
  if (event?.type !== "merge.finished") return;
  assert.equal(event.outcome, "branch-moved");
  assert.match(event.detail, /moved to fffffff after the checks ran on eeeeeee/);
  assert.equal(event.branchGone, undefined);
  assert.equal(gh.find("POST", MERGE).length, 0);
  gh.done();
});

test("a stage branch deleted after its checks is not merged either, and the event says it is gone", async () => {
  gh = mockGitHub();
  gh.api.get(STAGE_REF).reply(404, { message: "Not Found" });
  const [event] = await executeEffect(makeContext(makeDiamond()), checkedEffect);
  assert.ok(event?.type === "merge.finished");
  assert.deepEqual([event.outcome, event.branchGone], ["branch-moved", true]);
  assert.match(event.detail, /was deleted after the checks ran on eeeeeee/);
  gh.done();
});

test("a 502 on the merge: the merge point does not contain the commit, so the effect fails retryably", async () => {
  gh = mockGitHub();
  gh.api
    .get(STAGE_REF)
    .reply(200, { ref: "refs/heads/loom/pr-7/PLAN-demo/a", object: { sha: CHECKED, type: "commit" } });
  gh.api.post(MERGE).reply(502, { message: "Bad Gateway" });
  gh.api.get(BASE_REF).reply(200, { ref: "refs/heads/feature/demo", object: { sha: SHA, type: "commit" } });
  gh.api
    .get(`/repos/octo/repo/compare/${CHECKED}...${SHA}`)
    .query({ per_page: "1" })
    .reply(200, { status: "diverged" });
  await assert.rejects(
    executeEffect(makeContext(makeDiamond(), { attempt: 1 }), checkedEffect),
    (error: unknown) => {
      assert.ok(error instanceof EffectError && error.retryable, String(error));
      return true;
    },
  );
  assert.equal(gh.find("POST", MERGE).length, 1, "never retried blindly");
  gh.done();
});

test("a 502 on the last try is reported as an error, so the stage says why", async () => {
  gh = mockGitHub();
  gh.api
    .get(STAGE_REF)
    .reply(200, { ref: "refs/heads/loom/pr-7/PLAN-demo/a", object: { sha: CHECKED, type: "commit" } });
  gh.api.post(MERGE).reply(500, { message: "Server Error" });
  gh.api.get(BASE_REF).reply(200, { ref: "refs/heads/feature/demo", object: { sha: SHA, type: "commit" } });
  gh.api
    .get(`/repos/octo/repo/compare/${CHECKED}...${SHA}`)
    .query({ per_page: "1" })
    .reply(200, { status: "diverged" });
  const [event] = await executeEffect(makeContext(makeDiamond(), { attempt: MERGE_TRIES }), checkedEffect);
  assert.equal(event?.type === "merge.finished" && event.outcome, "error");
  assert.match(
    event?.type === "merge.finished" ? event.detail : "",
    /did not merge after 4 tries \(500: Server Error\)/,
  );
  gh.done();
});

test("a merge GitHub did but answered 504: the merge point contains the commit, so it is merged (once)", async () => {
  gh = mockGitHub();
  gh.api
    .get(STAGE_REF)
    .reply(200, { ref: "refs/heads/loom/pr-7/PLAN-demo/a", object: { sha: CHECKED, type: "commit" } });
  gh.api.post(MERGE).reply(504, { message: "We couldn't respond to your request in time" });
  gh.api.get(BASE_REF).reply(200, { ref: "refs/heads/feature/demo", object: { sha: SHA, type: "commit" } });
  gh.api
    .get(`/repos/octo/repo/compare/${CHECKED}...${SHA}`)
    .query({ per_page: "1" })
    .reply(200, { status: "ahead" });
  gh.api
    .get(`/repos/octo/repo/commits/${SHA}`)
    .reply(200, { sha: SHA, parents: [{ sha: "1".repeat(40) }, { sha: CHECKED }] });
  const [event] = await executeEffect(makeContext(makeDiamond()), checkedEffect);
  assert.equal(event?.type === "merge.finished" && event.outcome, "merged");
  assert.equal(event?.type === "merge.finished" && event.sha, SHA, "the merge commit is loom's own");
  assert.equal(gh.find("POST", MERGE).length, 1);
  gh.done();
});

const cases = [
  { status: 204, body: "", outcome: "nothing-to-merge", detail: /already contains/ },
  { status: 409, body: { message: "Merge conflict" }, outcome: "conflict", detail: /Merge conflict/ },
  {
    status: 404,
    body: { message: "Base does not exist" },
    outcome: "error",
    detail: /404.*Base does not exist/,
  },
  {
    status: 403,
    body: { message: "Resource not accessible by integration" },
    outcome: "error",
    detail: /403/,
  },
  { status: 422, body: { message: "Validation Failed" }, outcome: "error", detail: /422/ },
] as const;

for (const c of cases) {
  test(`a merge answered ${c.status} is reported ${c.outcome}, and never retried`, async () => {
    gh = mockGitHub();
    gh.api.post(MERGE).reply(c.status, c.body);
    const ctx = makeContext(makeDiamond(), { octokit: makeRetryingOctokit() });
    const events = await executeEffect(ctx, effect);
    assert.equal(events.length, 1);
    const [event] = events;
    assert.equal(event?.type, "merge.finished");
    if (event?.type !== "merge.finished") return;
    assert.equal(event.outcome, c.outcome);
    assert.match(event.detail, c.detail);
    assert.equal(gh.find("POST", MERGE).length, 1);
    assert.equal(ctx.calls?.total, 1);
    gh.done();
  });
}

test("the merge's event says the plan files are untouched only when GitHub's answer lists every changed file and none is a plan file", async () => {
  const parent = "1".repeat(40);
  const file = (filename: string, previous?: string) => ({
    sha: "2".repeat(40),
    filename,
    status: previous === undefined ? "modified" : "renamed",
    additions: 1,
    deletions: 0,
    changes: 1,
    blob_url: "https://github.com/octo/repo/blob/x",
    raw_url: "https://github.com/octo/repo/raw/x",
    contents_url: "https://api.github.com/repos/octo/repo/contents/x",
    ...(previous === undefined ? {} : { previous_filename: previous }),
  });
  const many = Array.from({ length: 300 }, (_, i) => file(`src/f${i}.ts`));
  const cases: [string, unknown[] | undefined, boolean][] = [
    ["no plan file", [file("src/a.ts"), file("README.md")], true],
    ["no file at all", [], true],
    ["a plan file", [file("src/a.ts"), file("doc/plans/PLAN-x.md")], false],
    ["a lifecycle-prefixed plan file", [file("docs/DONE-PLAN-x.md")], false],
    ["a plan file renamed away", [file("doc/plans/notes.md", "doc/plans/PLAN-x.md")], false],
    ["a full page (GitHub pages the rest)", many, false],
    ["no files in the answer", undefined, false],
  ];
  for (const [name, files, untouched] of cases) {
    gh = mockGitHub();
    gh.api.post(MERGE).reply(201, {
      sha: SHA,
      commit: { tree: { sha: "7".repeat(40) } },
      parents: [{ sha: parent }],
      ...(files === undefined ? {} : { files }),
    });
    const [event] = await executeEffect(makeContext(makeDiamond()), effect);
    assert.equal(event?.type, "merge.finished");
    if (event?.type !== "merge.finished") return;
    assert.equal(event.plansUntouched === true, untouched, name);
    assert.equal(event.parent, parent, name);
    assert.equal(event.tree, "7".repeat(40), `${name}: the merge commit's tree, for a rename on it`);
    // Every path it changed (a rename's both names) when the answer lists all of them, else none.
    const listed = files !== undefined && files.length < 300;
    assert.equal(event.changedPaths !== undefined, listed, `${name}: changed paths known`);
    if (name === "a plan file renamed away")
      assert.deepEqual(event.changedPaths, ["doc/plans/notes.md", "doc/plans/PLAN-x.md"]);
    gh.done();
    gh.cleanup();
    gh = undefined;
  }
});
