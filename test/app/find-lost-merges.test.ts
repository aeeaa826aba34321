import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import pino from "pino";
import { ProbotOctokit } from "probot";
import type { EngineDeps } from "../../app/engine/engine-deps.ts";
import { findLostMerges, headContains } from "../../app/engine/find-lost-merges.ts";
import { createApiCalls, EffectError } from "../../app/github/effect-context.ts";
import type { PlanState } from "../../src/orchestrator/state.ts";
import { makeDiamond } from "../status/make-plan-state.ts";
import { mockGitHub, type GitHubMock } from "../support/github-mock.ts";

/*
 * Which merged stages a push took out of the pull request: GitHub's compare `sha...head` says
 * `ahead` or `identical` when head contains sha, `behind` or `diverged` when it does not, 404 when
 * GitHub no longer has the commit.
 */

const Octokit = ProbotOctokit.defaults({ retry: { enabled: false }, throttle: { enabled: false } });
const repo = { owner: "octo", repo: "repo", installationId: 1, defaultBranch: "main" };
const HEAD = "f".repeat(40);
const [A, B, LOOM] = ["a", "b", "c"].map((c) => c.repeat(40)) as [string, string, string];
const AT = 1_000;

let gh: GitHubMock | undefined;
afterEach(() => {
  gh?.cleanup();
  gh = undefined;
});

function setUp() {
  gh = mockGitHub();
  const calls = createApiCalls();
  const warnings: { msg: string; stages?: number; headSha?: string }[] = [];
  const log = pino({ level: "warn" }, { write: (line: string) => warnings.push(JSON.parse(line) as never) });
  const deps = { now: () => AT, log, calls } as unknown as EngineDeps;
  return { deps, calls, warnings, octokit: new Octokit({ auth: "t" }), api: gh.api };
}

/** The diamond with a and b merged (at A and B), loom's newest head LOOM. */
function mergedState(overrides: Partial<PlanState> = {}): PlanState {
  const state = makeDiamond();
  Object.assign(state.stages["a"]!, { status: "completed", merged: true, mergedSha: A });
  Object.assign(state.stages["b"]!, { status: "completed", merged: true, mergedSha: B });
  return { ...state, loomHeads: [LOOM], ...overrides };
}

const compare = (base: string) => `/repos/octo/repo/compare/${base}...${HEAD}`;

test("a push whose head still contains loom's newest head keeps every merged stage, for one compare", async () => {
  const { deps, calls, warnings, octokit, api } = setUp();
  api.get(compare(LOOM)).query({ per_page: "1" }).reply(200, { status: "ahead" });
  assert.deepEqual(await findLostMerges(deps, octokit, repo, mergedState(), HEAD), []);
  assert.equal(calls.by["checkMerged"], 1);
  assert.deepEqual(warnings, []);
  gh?.done();
});

test("a rewritten head loses exactly the merged stages it no longer contains, and says so in the log", async () => {
  const { deps, octokit, api, warnings } = setUp();
  api.get(compare(LOOM)).query(true).reply(200, { status: "diverged" });
  api.get(compare(A)).query(true).reply(200, { status: "identical" });
  api.get(compare(B)).query(true).reply(200, { status: "behind" });
  const state = mergedState();
  // A stage whose merge was already lost keeps its old commit but is not merged: not compared.
  Object.assign(state.stages["c"]!, { status: "completed", merged: false, mergedSha: "d".repeat(40) });
  assert.deepEqual(await findLostMerges(deps, octokit, repo, state, HEAD), [
    { type: "merge.lost", at: AT, stageId: "b", headSha: HEAD, sha: B },
  ]);
  assert.deepEqual(
    warnings.map((w) => [w.msg, w.stages, w.headSha]),
    [["a push removed merged stages from the pull request", 1, HEAD]],
  );
  gh?.done();
});

test("without loom heads recorded, the head loom knew is compared; a commit GitHub no longer has is lost", async () => {
  const { deps, octokit, api } = setUp();
  const state = mergedState();
  delete state.loomHeads;
  api.get(compare(state.pr.headSha)).query(true).reply(404, { message: "Not Found" });
  api.get(compare(A)).query(true).reply(404, { message: "Not Found" });
  api.get(compare(B)).query(true).reply(200, { status: "ahead" });
  assert.deepEqual(
    (await findLostMerges(deps, octokit, repo, state, HEAD)).map((e) => e.type === "merge.lost" && e.stageId),
    ["a"],
  );
  gh?.done();
});

test("nothing is compared for loom's own head, a plan with nothing merged, or a fork plan", async () => {
  const { deps, octokit } = setUp();
  assert.deepEqual(await findLostMerges(deps, octokit, repo, mergedState(), LOOM), []);
  assert.deepEqual(await findLostMerges(deps, octokit, repo, makeDiamond(), HEAD), []);
  const fork = mergedState({
    fork: { repo: "someone/widgets", target: "loom/pr-7/result/PLAN-demo" } as PlanState["fork"],
  });
  assert.deepEqual(await findLostMerges(deps, octokit, repo, fork, HEAD), []);
  assert.equal(gh?.requests.length, 0);
  gh?.done();
});

test("headContains: a head contains itself without asking; a GitHub failure other than 404 throws for a retry", async () => {
  const { deps, octokit, api } = setUp();
  assert.equal(await headContains(deps, octokit, repo, HEAD, HEAD), true);
  api.get(compare(A)).query(true).reply(502, { message: "Bad Gateway" });
  await assert.rejects(
    headContains(deps, octokit, repo, HEAD, A),
    (error: unknown) =>
      error instanceof EffectError && /^comparing aaaaaaa with the pull request's head/.test(error.message),
  );
  gh?.done();
});

test("a rewritten head that still holds every merged stage's commit loses none and warns of nothing", async () => {
  const { deps, octokit, api, warnings } = setUp();
  api.get(compare(LOOM)).query(true).reply(200, { status: "diverged" });
  api.get(compare(A)).query(true).reply(200, { status: "ahead" });
  api.get(compare(B)).query(true).reply(200, { status: "identical" });
  assert.deepEqual(await findLostMerges(deps, octokit, repo, mergedState(), HEAD), []);
  assert.deepEqual(warnings, []);
  gh?.done();
});

test("a compare of the same head already made (reading the push's changed paths) is not asked again", async () => {
  const { deps, calls, octokit } = setUp();
  const state = mergedState({ loomHeads: [LOOM] });
  state.pr.headSha = LOOM;
  assert.deepEqual(
    await findLostMerges(deps, octokit, repo, state, HEAD, { base: LOOM, contains: true }),
    [],
  );
  assert.equal(calls.by["checkMerged"], undefined);
  gh?.done();
});

test("with several loom heads recorded, the newest is the one compared: its ancestors (the older merges) are in it", async () => {
  const { deps, calls, octokit, api } = setUp();
  const older = "9".repeat(40);
  api.get(compare(LOOM)).query(true).reply(200, { status: "ahead" });
  assert.deepEqual(
    await findLostMerges(deps, octokit, repo, mergedState({ loomHeads: [older, LOOM] }), HEAD),
    [],
  );
  assert.equal(calls.by["checkMerged"], 1);
  gh?.done();
});
