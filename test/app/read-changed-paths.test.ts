import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { ProbotOctokit } from "probot";
import type { EngineDeps } from "../../app/engine/engine-deps.ts";
import { readChangedPaths } from "../../app/engine/read-changed-paths.ts";
import { createApiCalls } from "../../app/github/effect-context.ts";
import type { PlanState } from "../../src/orchestrator/state.ts";
import { makeDiamond } from "../status/make-plan-state.ts";
import { mockGitHub, type GitHubMock } from "../support/github-mock.ts";

const Octokit = ProbotOctokit.defaults({ retry: { enabled: false }, throttle: { enabled: false } });
const repo = { owner: "octo", repo: "repo", installationId: 1, defaultBranch: "main" };
const HEAD = "f".repeat(40);

let gh: GitHubMock | undefined;
afterEach(() => {
  gh?.cleanup();
  gh = undefined;
});

function setUp() {
  gh = mockGitHub();
  const calls = createApiCalls();
  const deps = { now: () => 1, calls } as unknown as EngineDeps;
  return { deps, calls, octokit: new Octokit({ auth: "t" }), api: gh.api };
}

/** The diamond with a merged. */
function mergedState(): PlanState {
  const state = makeDiamond();
  Object.assign(state.stages["a"]!, { status: "completed", merged: true });
  return state;
}

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

test("a person's push with a merged stage costs one compare against the head loom knew: every path it changed", async () => {
  const { deps, calls, octokit, api } = setUp();
  const state = mergedState();
  api
    .get(`/repos/octo/repo/compare/${state.pr.headSha}...${HEAD}`)
    .query({ per_page: "1" })
    .reply(200, {
      status: "ahead",
      ahead_by: 2,
      commits: [{ sha: HEAD, commit: { message: "Fix b" } }],
      files: [file("src/b/x.ts"), file("src/new.ts", "src/old.ts")],
    });
  assert.deepEqual(await readChangedPaths(deps, octokit, repo, state, HEAD), {
    changedPaths: ["src/b/x.ts", "src/new.ts", "src/old.ts"],
    // What findLostMerges would ask next: the new head contains the known one.
    compared: { base: state.pr.headSha, contains: true },
  });
  assert.equal(calls.by["readChangedPaths"], 1);
  gh?.done();
});

test("a full page of files (GitHub lists at most 300) or a head GitHub no longer has is not known", async () => {
  const { deps, octokit, api } = setUp();
  const state = mergedState();
  const url = `/repos/octo/repo/compare/${state.pr.headSha}...${HEAD}`;
  api
    .get(url)
    .query(true)
    .reply(200, {
      status: "diverged",
      ahead_by: 1,
      commits: [{ sha: HEAD, commit: { message: "Rewrite" } }],
      files: Array.from({ length: 300 }, (_, i) => file(`f${i}`)),
    });
  assert.deepEqual(await readChangedPaths(deps, octokit, repo, state, HEAD), {
    changedPaths: null,
    compared: { base: state.pr.headSha, contains: false },
  });
  api.get(url).query(true).reply(404, { message: "Not Found" });
  assert.deepEqual(await readChangedPaths(deps, octokit, repo, state, HEAD), { changedPaths: null });
  gh?.done();
});

test("no request when it cannot matter: nothing merged yet, loom's own head, a fork plan", async () => {
  const { deps, calls, octokit } = setUp();
  assert.deepEqual(await readChangedPaths(deps, octokit, repo, makeDiamond(), HEAD), {});
  assert.deepEqual(
    await readChangedPaths(deps, octokit, repo, { ...mergedState(), loomHeads: [HEAD] }, HEAD),
    {},
  );
  const fork = {
    ...mergedState(),
    fork: {
      repo: "fork/repo",
      target: "loom/pr-7/result/PLAN-demo",
      syncedSha: null,
      syncingSha: null,
      problem: null,
    },
  };
  assert.deepEqual(await readChangedPaths(deps, octokit, repo, fork, HEAD), {});
  assert.equal(calls.by["readChangedPaths"], undefined);
});

test("one commit with loom's message is taken for loom's own push whose answer is on its way: no changed paths", async () => {
  const { deps, octokit, api } = setUp();
  const state = mergedState();
  api
    .get(`/repos/octo/repo/compare/${state.pr.headSha}...${HEAD}`)
    .query(true)
    .reply(200, {
      status: "ahead",
      ahead_by: 1,
      commits: [{ sha: HEAD, commit: { message: "loom: merge stage b (Left) of PLAN-demo" } }],
      files: [file("src/b/x.ts")],
    });
  assert.deepEqual(await readChangedPaths(deps, octokit, repo, state, HEAD), {
    compared: { base: state.pr.headSha, contains: true },
  });
  gh?.done();
});
