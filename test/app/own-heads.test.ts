import assert from "node:assert/strict";
import { test } from "node:test";
import { isLateOwnPush, isOwnHead, isUntouchedOwnHead } from "../../app/engine/own-heads.ts";
import { createStoredPlanReader } from "../../app/engine/stored-plan.ts";
import type { PlanRecord } from "../../app/store/store.ts";
import type { PlanState } from "../../src/orchestrator/state.ts";
import { makeDiamond } from "../status/make-plan-state.ts";
import { REPO_SETTINGS } from "./stored-plan-fixture.ts";

/*
 * Which pushes of a pull request's head are loom's own commits (a stage's merge, a plan file's
 * rename), judged from the running plans' stored states alone, and how much of the pull request
 * each still needs read: the file list only, or nothing at all.
 */

const [OLD, MERGE, LATER, OTHER] = ["1", "2", "3", "4"].map((c) => c.repeat(40)) as [
  string,
  string,
  string,
  string,
];
const BLOB = "b".repeat(40);

/** A stored plan record of pull request 7 at `path`, its state the diamond with `overrides`. */
function record(path: string, overrides: Partial<PlanState> = {}, active = true): PlanRecord {
  const base = makeDiamond();
  const state: PlanState = {
    ...base,
    plan: { ...base.plan, path, blobSha: BLOB },
    pr: { ...base.pr, headSha: OLD },
    ...overrides,
  };
  const key = { installationId: 1, owner: "acme", repo: "widgets", pr: 7, planPath: path };
  return {
    key,
    planKey: `acme/widgets#7:${path}`,
    state: { format: 1, state, repo: REPO_SETTINGS },
    parts: new Map(),
    active,
    version: 1,
    createdAt: 0,
    updatedAt: 0,
  };
}

const A = "doc/plans/PLAN-a.md";
const B = "doc/plans/PLAN-b.md";
const same = (path: string) => ({ file: path, path });

test("isOwnHead: loom's merge, with every plan file the running plans' own at their blobs, is loom's own head", () => {
  const known = [record(A, { loomHeads: [MERGE] }), record(B, { loomHeads: [OLD, MERGE] })];
  const blobs = new Map([
    [A, BLOB],
    [B, BLOB],
  ]);
  assert.equal(isOwnHead(known, createStoredPlanReader(), MERGE, [same(A), same(B)], blobs), true);
  // A closed plan takes no part: it need not be at loom's head.
  const closed = record("doc/plans/PLAN-c.md", {}, false);
  assert.equal(isOwnHead([...known, closed], createStoredPlanReader(), MERGE, [same(A)], blobs), true);
});

test("isOwnHead: a renamed plan file is judged by its blob under its new name", () => {
  const renamed = "doc/plans/IN_PROGRESS-PLAN-a.md";
  const known = [record(A, { loomHeads: [MERGE] })];
  const read = createStoredPlanReader();
  const files = [{ file: renamed, path: A }];
  assert.equal(isOwnHead(known, read, MERGE, files, new Map([[renamed, BLOB]])), true);
  assert.equal(isOwnHead(known, read, MERGE, files, new Map([[A, BLOB]])), false);
});

test("isOwnHead: a head not loom's for every running plan, or a plan not running yet, or a changed plan file, is not", () => {
  const read = createStoredPlanReader();
  const blobs = new Map([
    [A, BLOB],
    [B, BLOB],
  ]);
  const atMerge = record(A, { loomHeads: [MERGE] });
  const cases: [string, PlanRecord[], { file: string; path: string }[], Map<string, string | null>][] = [
    ["no plan running", [], [], blobs],
    ["only a closed plan", [record(A, { loomHeads: [MERGE] }, false)], [same(A)], blobs],
    ["another plan without the merge", [atMerge, record(B, { loomHeads: [OTHER] })], [same(A)], blobs],
    ["a plan from before loom recorded its heads", [atMerge, record(B)], [same(A)], blobs],
    ["a new plan file", [atMerge], [same(A), same(B)], blobs],
    [
      "the file of a closed plan",
      [atMerge, record(B, { loomHeads: [MERGE] }, false)],
      [same(A), same(B)],
      blobs,
    ],
    ["the plan file changed", [atMerge], [same(A)], new Map([[A, OTHER]])],
    ["the plan file without a blob", [atMerge], [same(A)], new Map([[A, null]])],
  ];
  for (const [name, known, files, given] of cases)
    assert.equal(isOwnHead(known, read, MERGE, files, given), false, name);
});

test("isUntouchedOwnHead: every running plan already on the head, moved there by loom with no plan file changed", () => {
  const read = createStoredPlanReader();
  const untouched = (overrides: Partial<PlanState["pr"]> = {}) =>
    ({ ...makeDiamond().pr, headSha: MERGE, plansUntouched: true, ...overrides }) as PlanState["pr"];
  const done = record(B, {}, false);
  assert.equal(isUntouchedOwnHead([record(A, { pr: untouched() }), done], read, MERGE), true);
  const cases: [string, PlanRecord[]][] = [
    ["no plan running", []],
    ["only a closed plan", [record(A, { pr: untouched() }, false)]],
    [
      "a plan on another head",
      [record(A, { pr: untouched() }), record(B, { pr: untouched({ headSha: OLD }) })],
    ],
    ["a head loom did not mark untouched", [record(A, { pr: { ...makeDiamond().pr, headSha: MERGE } })]],
  ];
  for (const [name, known] of cases) assert.equal(isUntouchedOwnHead(known, read, MERGE), false, name);
});

test("isLateOwnPush: a push of loom's earlier commit that every running plan moved past", () => {
  const read = createStoredPlanReader();
  const past = (overrides: Partial<PlanState> = {}) =>
    record(A, { loomHeads: [MERGE, LATER], pr: { ...makeDiamond().pr, headSha: LATER }, ...overrides });
  assert.equal(isLateOwnPush([past(), record(B, {}, false)], read, MERGE, OLD), true);
  const cases: [string, PlanRecord[], string | null][] = [
    ["no plan running", [], OLD],
    ["only a closed plan", [record(A, { loomHeads: [MERGE, LATER] }, false)], OLD],
    ["a head read back (no push)", [past()], null],
    ["another plan not past it", [past(), record(B, { loomHeads: [MERGE] })], OLD],
    ["a push from the head loom knows", [past()], LATER],
  ];
  for (const [name, known, before] of cases)
    assert.equal(isLateOwnPush(known, read, MERGE, before), false, name);
});
