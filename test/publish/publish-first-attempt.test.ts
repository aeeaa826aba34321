import { afterEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { PublishInputs } from "../../action/src/publish/run-publish.ts";
import type { PublishResult } from "../../src/artifacts/publish-result.ts";
import { BRANCH, PLAN_ID, PLAN_PATH, PublishFixture, STAGE_ID, git, publishIn } from "./git-fixture.ts";

// A first attempt: the App dispatched without creating the stage branch; the run job checked out
// the merge point (`base`, here `main`) and the publish job creates the branch.
const inputs: PublishInputs = {
  plan_path: PLAN_PATH,
  plan_id: PLAN_ID,
  stage_id: STAGE_ID,
  branch: BRANCH,
  base: "main",
};

let fixture: PublishFixture | undefined;
afterEach(() => fixture?.cleanup());

function firstAttempt(): PublishFixture {
  fixture = new PublishFixture({}, { stageBranch: false });
  return fixture;
}

/** An App that created the stage branch before the dispatch: it is on origin, cut from main. */
function branchCutEarlier(): PublishFixture {
  fixture = new PublishFixture();
  return fixture;
}

function publish(f: PublishFixture, override: Partial<PublishInputs> = {}): Promise<PublishResult> {
  return publishIn(f, { ...inputs, ...override });
}

describe("publish: the first attempt creates the stage branch", () => {
  it("creates the stage branch at the session's tip, from the merge point, other branches unchanged", async () => {
    const f = firstAttempt();
    const start = f.originRef("main");
    assert.equal(f.hasOriginBranch(BRANCH), false);
    const before = f.originRefs();
    const head = f.commit("Add the API", { "src/api.ts": "export const api = 1;\n" });
    f.bundle();
    const result = await publish(f);
    assert.deepEqual(result.refusals, []);
    assert.equal(result.ok, true);
    assert.equal(result.pushed_sha, head);
    assert.equal(result.base_sha, start);
    assert.equal(f.originRef(BRANCH), head);
    assert.equal(git(f.origin, "rev-parse", `${head}^`), start, "the branch starts on the merge point");
    assert.equal(f.originRefs(), `${before}\nrefs/heads/${BRANCH} ${head}`.split("\n").sort().join("\n"));
  });

  it("creates it even when the merge point moved on after the session started (another stage merged)", async () => {
    const f = firstAttempt();
    const head = f.commit("Add the API", { "src/api.ts": "export const api = 1;\n" });
    f.bundle();
    const moved = f.pushElsewhere("main", { "other.txt": "another stage's work\n" });
    const result = await publish(f);
    assert.equal(result.ok, true, JSON.stringify(result.refusals));
    assert.equal(f.originRef(BRANCH), head);
    assert.equal(f.originRef("main"), moved, "the merge point is not written");
  });

  it("creates the branch at the start when the session committed nothing (the stage merges from it)", async () => {
    const f = firstAttempt();
    const start = f.originRef("main");
    f.bundle();
    const result = await publish(f);
    assert.equal(result.ok, true, JSON.stringify(result.refusals));
    assert.equal(result.pushed_sha, start);
    assert.equal(f.originRef(BRANCH), start);
  });

  it("still checks every commit: a plan change is refused and no branch is created", async () => {
    const f = firstAttempt();
    f.commit("Grant myself", { [PLAN_PATH]: "# Plan: mine\n" });
    f.bundle();
    const result = await publish(f);
    assert.equal(result.ok, false);
    assert.equal(result.refusals[0]?.rule, "plan-change");
    assert.equal(f.hasOriginBranch(BRANCH), false);
  });

  it("refuses a session that started on a commit the merge point does not have", async () => {
    const f = firstAttempt();
    // The run job's start is not on main: a commit of its own, then the session's work on top.
    const stray = f.commit("Not on main", { "stray.txt": "x\n" });
    f.commit("Work", { "src/a.ts": "1\n" });
    f.bundle(undefined, { base_sha: stray });
    const result = await publish(f);
    assert.equal(result.ok, false);
    assert.equal(result.refusals[0]?.rule, "not-fast-forward");
    assert.equal(
      result.refusals[0]?.detail,
      `the session started on ${stray.slice(0, 12)}, which is not on main; the stage branch ${BRANCH} is not created from it`,
    );
    assert.equal(f.hasOriginBranch(BRANCH), false);
  });

  it("refuses, as before, when the dispatch named no merge point (an App older than the workflow)", async () => {
    const f = firstAttempt();
    f.commit("Work", { "src/a.ts": "1\n" });
    f.bundle();
    const result = await publish(f, { base: "" });
    assert.equal(result.ok, false);
    assert.match(result.refusals[0]?.detail ?? "", /does not exist on origin/);
    assert.equal(f.hasOriginBranch(BRANCH), false);
  });

  it("refuses when the merge point named is no branch on origin: the stage branch does not exist", async () => {
    const f = firstAttempt();
    f.commit("Work", { "src/a.ts": "1\n" });
    f.bundle();
    const result = await publish(f, { base: "gone" });
    assert.deepEqual(
      result.refusals.map((r) => [r.rule, r.detail]),
      [["not-fast-forward", `the stage branch ${BRANCH} does not exist on origin`]],
    );
    assert.equal(f.hasOriginBranch(BRANCH), false);
  });

  it("never takes another stage branch, or the stage branch itself, as the merge point", async () => {
    const f = firstAttempt();
    f.commit("Work", { "src/a.ts": "1\n" });
    f.bundle();
    for (const base of [BRANCH, "not a branch..name"]) {
      f.uploads.length = 0;
      const result = await publish(f, { base });
      assert.equal(result.ok, false, base);
      assert.equal(result.refusals[0]?.rule, "not-fast-forward", base);
    }
    assert.equal(f.hasOriginBranch(BRANCH), false);
  });
});

describe("publish: a stage branch cut earlier from the merge point", () => {
  it("accepts a session that started on the merge point's newer head (the branch still fast-forwards)", async () => {
    // An App that still creates the branch before the dispatch, with this workflow checking out the
    // merge point for attempt 1: the merge point moved on between the two.
    const f = branchCutEarlier();
    const cut = f.originRef(BRANCH);
    f.pushElsewhere("main", { "other.txt": "merged meanwhile\n" });
    f.startFrom("main");
    const head = f.commit("Work", { "src/a.ts": "1\n" });
    f.bundle();
    const result = await publish(f);
    assert.equal(result.ok, true, JSON.stringify(result.refusals));
    assert.equal(result.base_sha, cut);
    assert.equal(f.originRef(BRANCH), head);
  });

  it("names only the stage branch when the merge point given is the stage branch itself", async () => {
    const f = branchCutEarlier();
    const elsewhere = f.pushElsewhere("other", { "elsewhere.txt": "not on the stage branch\n" });
    f.startFrom("other");
    f.commit("Work", { "src/a.ts": "1\n" });
    f.bundle();
    const result = await publish(f, { base: BRANCH });
    assert.deepEqual(
      result.refusals.map((r) => [r.rule, r.detail]),
      [
        [
          "not-fast-forward",
          `the bundle builds on ${elsewhere.slice(0, 12)}, which is not on ${BRANCH} (it moved, or the bundle is from elsewhere)`,
        ],
      ],
    );
  });

  it("refuses a session on the merge point when the stage branch has work of its own", async () => {
    const f = branchCutEarlier();
    const own = f.pushElsewhere(BRANCH, { "earlier.txt": "an earlier attempt's work\n" });
    f.startFrom("main");
    f.commit("Work", { "src/a.ts": "1\n" });
    f.bundle();
    const result = await publish(f);
    assert.equal(result.ok, false);
    assert.equal(result.refusals[0]?.rule, "not-fast-forward");
    assert.equal(f.originRef(BRANCH), own, "the earlier attempt's work stays");
  });
});
