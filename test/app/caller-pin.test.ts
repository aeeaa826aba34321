import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { createGitHubCache } from "../../app/github/github-cache.ts";
import { LOOM_RELEASES } from "../../src/release/loom-releases.ts";
import { MAIN_CONTRACT, STAGE_CONTRACTS } from "../../src/release/stage-contract.ts";
import { pullRequestPayload, pushSuitePayload, REPO } from "../support/webhook-payloads.ts";
import { CALLER_PATH, callerPinning, CURRENT_RELEASE, startHarness } from "./loom-harness.ts";
import type { Harness } from "./loom-harness.ts";

/*
 * The App reads the caller workflow on the default branch when a plan starts and serves its pin:
 * an older release (0.3) gets each stage branch before its first run and a note; a release it
 * cannot serve (0.2), a missing caller: nothing is dispatched and the plan check run says what to
 * paste; a ref it does not know is served the safe way, saying so. A push to the default branch
 * (GitHub's check_suite.requested) reads the caller again.
 */

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const V02 = LOOM_RELEASES.find((release) => release.version === "0.2.0")?.sha ?? "";
const V03 = LOOM_RELEASES.find((release) => release.version === "0.3.0")?.sha ?? "";
const PASTE = `uses: loom-dev/loom/.github/workflows/loom-stage.yml@${CURRENT_RELEASE.sha}`;
const PERMISSIONS = "permissions: { contents: write, actions: read, checks: write }";

function planCheckRun(harness: Harness): Record<string, unknown> {
  const runs = harness.fake.checkRuns.filter((run) => run["name"] === "loom: PLAN-diamond");
  const run = runs.at(-1);
  assert.ok(run, "the plan's check run");
  return run;
}

function summaryOf(run: Record<string, unknown>): string {
  return String((run["output"] as { summary?: string } | undefined)?.summary ?? "");
}

/** The App's requests in order, as `METHOD path` without the query. */
function requestLines(harness: Harness): string[] {
  return harness.gh.requests.map((r) => `${r.method} ${decodeURIComponent(r.path.replace(/\?.*$/, ""))}`);
}

/** The stages dispatched so far, in order. */
function dispatchedStages(harness: Harness): (string | undefined)[] {
  return harness.fake.dispatches.map((d) => d.inputs["stage_id"]);
}

async function open(harness: Harness): Promise<void> {
  await harness.receive(
    "pull_request",
    pullRequestPayload("opened", { number: 1, headSha: harness.headSha }),
  );
}

test("a caller pinning 0.3.0 is served: stage a's branch is created at the merge point before its dispatch, and the plan check run says which pin saves that", async () => {
  h = await startHarness({ caller: callerPinning(V03) });
  await open(h);
  const lines = requestLines(h);
  const create = lines.indexOf("POST /repos/acme/widgets/git/refs");
  const dispatch = lines.findIndex((line) => line.endsWith("/dispatches"));
  assert.ok(create !== -1 && create < dispatch, `the branch before the dispatch: ${lines.join("\n")}`);
  assert.deepEqual(
    lines.slice(create - 1, create + 1),
    ["GET /repos/acme/widgets/git/ref/heads/feature/plan", "POST /repos/acme/widgets/git/refs"],
    "2 requests: the merge point's head, the create",
  );
  assert.ok(
    !lines.includes("GET /repos/acme/widgets/git/ref/heads/loom/pr-1/PLAN-diamond/a"),
    "the stage branch is not looked for before its first run",
  );
  assert.equal(h.fake.refs.get("loom/pr-1/PLAN-diamond/a"), h.headSha, "stage a's branch at the merge point");
  assert.deepEqual(
    h.fake.dispatches.map((d) => Object.keys(d.inputs)),
    [[...STAGE_CONTRACTS[MAIN_CONTRACT].dispatchInputs]],
    "the inputs the contract names, no other",
  );
  const run = planCheckRun(h);
  assert.notEqual(run["conclusion"], "failure");
  const summary = summaryOf(run);
  assert.ok(
    summary.includes(
      `\`${CALLER_PATH}\` line 18: \`uses: loom-dev/loom/.github/workflows/loom-stage.yml@${V03}\``,
    ),
    summary,
  );
  assert.match(summary, /pins loom 0\.3\.0 .*a read and a write more per stage/);
  assert.ok(summary.includes(`>     ${PASTE}`) && summary.includes(`>     ${PERMISSIONS}`), summary);
  await h.finish();
  h = undefined;
});

test("a caller pinning 0.2.0 is refused: nothing is dispatched, the plan check run fails with the line read and the lines to paste; fixing the caller on the default branch starts the plan", async () => {
  h = await startHarness({ caller: callerPinning(V02), cache: createGitHubCache() });
  await open(h);
  assert.deepEqual(dispatchedStages(h), [], "nothing dispatched");
  assert.equal(h.gh.find("POST", "/repos/acme/widgets/git/refs").length, 0, "no branch written");
  const run = planCheckRun(h);
  assert.equal(run["conclusion"], "failure");
  assert.equal((run["output"] as { title?: string }).title, "The caller workflow cannot run stages");
  const summary = summaryOf(run);
  assert.match(summary, /pins loom 0\.2\.0, which this App cannot serve/);
  assert.ok(
    summary.includes(`line 18: \`uses: loom-dev/loom/.github/workflows/loom-stage.yml@${V02}\``),
    summary,
  );
  assert.ok(summary.includes(`>     ${PASTE}`), summary);
  assert.deepEqual(
    h.fake.checkRuns.map((r) => r["name"]),
    ["loom: PLAN-diamond"],
    "no stage check runs: none can start",
  );

  // A push elsewhere reads nothing; a push to the default branch that leaves the caller alone costs a 304.
  const callerReads = (from: number) =>
    h?.fake.answers
      .slice(from)
      .filter((a) => decodeURIComponent(a.path) === `/repos/acme/widgets/contents/${CALLER_PATH}`);
  const before = h.fake.answers.length;
  await h.receive("check_suite", pushSuitePayload({ id: 7, headBranch: "feature/plan", headSha: h.headSha }));
  assert.deepEqual(callerReads(before), [], "a push to another branch reads nothing");
  const unchanged = h.fake.answers.length;
  await h.receive(
    "check_suite",
    pushSuitePayload({ id: 8, headBranch: REPO.defaultBranch, headSha: "1".repeat(40) }),
  );
  assert.deepEqual(
    callerReads(unchanged)?.map((a) => a.status),
    [304],
    "one conditional read, answered 304 (free)",
  );
  assert.deepEqual(dispatchedStages(h), []);

  h.fake.files.set(`${REPO.defaultBranch}:${CALLER_PATH}`, callerPinning(CURRENT_RELEASE.sha));
  await h.receive(
    "check_suite",
    pushSuitePayload({ id: 9, headBranch: REPO.defaultBranch, headSha: "2".repeat(40) }),
  );
  assert.deepEqual(dispatchedStages(h), ["a"], "the fixed caller starts the plan");
  assert.equal(
    h.gh.find("POST", "/repos/acme/widgets/git/refs").length,
    0,
    "its publish job makes the branch",
  );
  assert.notEqual(planCheckRun(h)["conclusion"], "failure");
  assert.ok(!summaryOf(planCheckRun(h)).includes("cannot run"));
  await h.finish();
  h = undefined;
});

test("a caller pinning a ref loom does not know (a branch) is served the safe way: the branch before attempt 1, and the plan check run says loom could not tell", async () => {
  h = await startHarness({ caller: callerPinning("main", "acme/loom-fork") });
  await open(h);
  assert.equal(h.fake.refs.get("loom/pr-1/PLAN-diamond/a"), h.headSha);
  assert.deepEqual(dispatchedStages(h), ["a"]);
  const run = planCheckRun(h);
  assert.notEqual(run["conclusion"], "failure");
  const summary = summaryOf(run);
  assert.ok(summary.includes("`uses: acme/loom-fork/.github/workflows/loom-stage.yml@main`"), summary);
  assert.match(
    summary,
    /pins `main`, which is no release commit loom knows.*cannot tell which contract it speaks/,
  );
  assert.ok(summary.includes(`>     ${PASTE}`), summary);
  await h.finish();
  h = undefined;
});

test("a repository without the caller workflow: the plan check run says so before anything is dispatched", async () => {
  h = await startHarness({ caller: null });
  await open(h);
  assert.deepEqual(dispatchedStages(h), []);
  const run = planCheckRun(h);
  assert.equal(run["conclusion"], "failure");
  const summary = summaryOf(run);
  assert.match(
    summary,
    /the caller workflow `\.github\/workflows\/loom\.yml` is not on the default branch `main`/,
  );
  assert.ok(summary.includes(`>     ${PASTE}`), summary);
  await h.finish();
  h = undefined;
});

test("a push to the default branch reads the caller once for all the repository's plans, and a fixed caller starts each", async () => {
  h = await startHarness({ caller: callerPinning(V02), cache: createGitHubCache() });
  await open(h);
  h.fake.pullFiles.set(2, ["README.md", "doc/plans/PLAN-diamond.md"]);
  await h.receive("pull_request", pullRequestPayload("opened", { number: 2, headSha: h.headSha }));
  assert.deepEqual(dispatchedStages(h), [], "both refused");
  h.fake.files.set(`${REPO.defaultBranch}:${CALLER_PATH}`, callerPinning(CURRENT_RELEASE.sha));
  const before = h.gh.requests.length;
  await h.receive(
    "check_suite",
    pushSuitePayload({ id: 9, headBranch: REPO.defaultBranch, headSha: "2".repeat(40) }),
  );
  assert.deepEqual(
    requestLines(h)
      .slice(before)
      .filter((line) => line === `GET /repos/acme/widgets/contents/${CALLER_PATH}`),
    [`GET /repos/acme/widgets/contents/${CALLER_PATH}`],
    "one read for both plans",
  );
  assert.deepEqual(
    h.fake.dispatches.map((d) => [/-pr(\d+)-/.exec(d.inputs["key"] ?? "")?.[1], d.inputs["stage_id"]]),
    [
      ["1", "a"],
      ["2", "a"],
    ],
    "each plan starts",
  );
  await h.finish();
  h = undefined;
});

test("a push to the default branch of a repository without a running plan costs nothing, and one that leaves the caller as it was writes nothing", async () => {
  h = await startHarness({ caller: callerPinning(V02), cache: createGitHubCache() });
  await h.receive(
    "check_suite",
    pushSuitePayload({ id: 5, headBranch: REPO.defaultBranch, headSha: "1".repeat(40) }),
  );
  assert.deepEqual(requestLines(h), [], "no plan: not even a token");
  await open(h);
  const before = h.gh.requests.length;
  await h.receive(
    "check_suite",
    pushSuitePayload({ id: 6, headBranch: REPO.defaultBranch, headSha: "2".repeat(40) }),
  );
  assert.deepEqual(
    requestLines(h).slice(before),
    [`GET /repos/acme/widgets/contents/${CALLER_PATH}`],
    "the caller read (a 304) and nothing else",
  );
  await h.finish();
  h = undefined;
});
