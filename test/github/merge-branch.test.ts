import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { executeEffect } from "../../app/github/execute-effect.ts";
import type { Effect } from "../../src/orchestrator/effects.ts";
import { mockGitHub } from "../support/github-mock.ts";
import type { GitHubMock } from "../support/github-mock.ts";
import { makeDiamond, T0 } from "../status/make-plan-state.ts";
import { makeContext, makeRetryingOctokit } from "./make-context.ts";

const effect: Effect = {
  type: "mergeBranch",
  key: "k:a:merge",
  stageId: "a",
  head: "loom/PLAN-demo/a",
  base: "feature/demo",
  message: "loom: merge stage a",
};
const MERGE = "/repos/octo/repo/merges";
const BASE_REF = "/repos/octo/repo/git/ref/heads%2Ffeature%2Fdemo";
const SHA = "c".repeat(40);
const at = T0 + 600_000;

let gh: GitHubMock | undefined;
afterEach(() => gh?.cleanup());

test("a 201 merge is reported merged with its sha once the base head is read back", async () => {
  gh = mockGitHub();
  gh.api
    .post(MERGE, { base: "feature/demo", head: "loom/PLAN-demo/a", commit_message: "loom: merge stage a" })
    .reply(201, { sha: SHA });
  gh.api.get(BASE_REF).reply(200, { ref: "refs/heads/feature/demo", object: { sha: SHA, type: "commit" } });
  const events = await executeEffect(makeContext(makeDiamond()), effect);
  assert.deepEqual(events, [
    {
      type: "merge.finished",
      at,
      stageId: "a",
      outcome: "merged",
      sha: SHA,
      detail: "merged loom/PLAN-demo/a into feature/demo",
    },
  ]);
  gh.done();
});

test("a merge commit no longer on the base after the merge is an error, not a success", async () => {
  gh = mockGitHub();
  const other = "d".repeat(40);
  gh.api.post(MERGE).reply(201, { sha: SHA });
  gh.api.get(BASE_REF).reply(200, { ref: "refs/heads/feature/demo", object: { sha: other, type: "commit" } });
  gh.api
    .get(`/repos/octo/repo/compare/${SHA}...${other}`)
    .query({ per_page: "1" })
    .reply(200, { status: "diverged" });
  const [event] = await executeEffect(makeContext(makeDiamond()), effect);
  assert.equal(event?.type === "merge.finished" && event.outcome, "error");
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
  { status: 500, body: { message: "Server Error" }, outcome: "error", detail: /500.*Server Error/ },
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
