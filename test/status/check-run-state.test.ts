import assert from "node:assert/strict";
import { test } from "node:test";
import { getStageActions } from "../../src/status/check-run-actions.ts";
import { getStageCheckState } from "../../src/status/check-run-state.ts";
import { describeStatus, getStatusIcon } from "../../src/status/format-status.ts";
import { getPlanCheckState } from "../../src/status/render-plan-check-run.ts";
import { STAGE_STATUSES } from "../../src/stage/stage-status.ts";
import type { StageStatus } from "../../src/stage/stage-status.ts";
import { HEAD_SHA, makeDiamond, makePlanState } from "./make-plan-state.ts";

const stageCases: { status: StageStatus; merged?: boolean; check: string; buttons: string[] }[] = [
  { status: "waiting-for-deps", check: "queued", buttons: ["skip"] },
  { status: "queued", check: "queued", buttons: ["skip"] },
  { status: "executing", check: "in_progress", buttons: ["cancel", "skip"] },
  { status: "needs-handoff", check: "in_progress", buttons: ["cancel", "skip"] },
  { status: "merge-conflict", check: "in_progress", buttons: ["cancel", "skip"] },
  { status: "completed", merged: false, check: "in_progress", buttons: [] },
  { status: "completed", merged: true, check: "completed/success", buttons: [] },
  { status: "skipped", check: "completed/skipped", buttons: [] },
  { status: "blocked", check: "completed/failure", buttons: ["retry", "skip"] },
  { status: "completed-with-failures", check: "completed/failure", buttons: ["retry", "skip"] },
  { status: "merge-blocked", check: "completed/failure", buttons: ["retry", "skip"] },
  { status: "needs-human-review", check: "completed/action_required", buttons: ["retry", "skip"] },
];

test("every stage status has a check-run mapping case", () => {
  assert.deepEqual(new Set(stageCases.map((c) => c.status)), new Set(STAGE_STATUSES));
});

for (const c of stageCases) {
  test(`a ${c.merged ? "merged " : ""}${c.status} stage shows as ${c.check} with buttons [${c.buttons.join(", ")}]`, () => {
    const state = makePlanState([{ id: "a", status: c.status, merged: c.merged ?? false }]);
    const stage = state.stages.a!;
    const check = getStageCheckState(stage);
    assert.equal(check.status === "completed" ? `completed/${check.conclusion}` : check.status, c.check);
    const actions = getStageActions(stage);
    assert.deepEqual(
      actions.map((a) => a.identifier),
      c.buttons,
    );
    for (const a of actions) {
      assert.ok(
        a.label.length <= 20 && a.identifier.length <= 20 && a.description.length <= 40,
        JSON.stringify(a),
      );
    }
  });
}

const planCases = [
  {
    name: "all merged",
    state: makeDiamond(
      Object.fromEntries(["a", "b", "c", "d"].map((id) => [id, { status: "completed", merged: true }])),
    ),
    want: "completed/success",
  },
  {
    name: "merged and skipped",
    state: makeDiamond({
      a: { status: "completed", merged: true },
      b: { status: "skipped", skippedBy: "label" },
      c: { status: "completed", merged: true },
      d: { status: "completed", merged: true },
    }),
    want: "completed/success",
  },
  { name: "one running", state: makeDiamond({ a: { status: "executing" } }), want: "in_progress" },
  {
    name: "stuck with nothing running",
    state: makeDiamond({ a: { status: "blocked", blockedBy: "retries" } }),
    want: "completed/failure",
  },
  {
    name: "stuck while another runs",
    state: makeDiamond({
      a: { status: "completed", merged: true },
      b: { status: "blocked" },
      c: { status: "executing" },
    }),
    want: "in_progress",
  },
  { name: "on hold", state: makeDiamond({}), hold: true, want: "queued" },
  {
    name: "untrusted, not approved",
    state: makeDiamond({}),
    untrusted: true,
    want: "completed/action_required",
  },
  {
    name: "closed before finishing",
    state: makeDiamond({ a: { status: "executing" } }),
    closed: true,
    want: "completed/cancelled",
  },
] as const;

for (const c of planCases) {
  test(`the plan check is ${c.want} when ${c.name}`, () => {
    const state = {
      ...c.state,
      hold: "hold" in c ? c.hold : false,
      closed: "closed" in c ? c.closed : false,
      trusted: !("untrusted" in c),
    };
    const check = getPlanCheckState(state);
    assert.equal(check.status === "completed" ? `completed/${check.conclusion}` : check.status, c.want);
  });
}

test("an untrusted plan approved for its current head SHA is no longer waiting", () => {
  const state = { ...makeDiamond({}), trusted: false, approvedSha: HEAD_SHA };
  assert.equal(getPlanCheckState(state).status, "in_progress");
});

test("a crashed stage waiting out its backoff shows as queued with a retry scheduled, not as a failure", () => {
  const state = makePlanState([{ id: "a", status: "blocked", retryAt: 2_000_000, blockedBy: null }]);
  const stage = state.stages.a!;
  assert.deepEqual(getStageCheckState(stage), { status: "queued" });
  assert.equal(describeStatus(stage), "retry scheduled");
  assert.equal(getStatusIcon(stage), "🔁");
});

test("a stage waiting out its backoff offers Retry (now), Cancel (the pending retry) and Skip", () => {
  const state = makePlanState([{ id: "a", status: "blocked", retryAt: 2_000_000, blockedBy: null }]);
  assert.deepEqual(
    getStageActions(state.stages.a!).map((a) => a.identifier),
    ["retry", "cancel", "skip"],
  );
});

test("a stage blocked by a label offers Skip but no Retry: removing the label unblocks it", () => {
  const state = makePlanState([{ id: "a", status: "blocked", retryAt: null, blockedBy: "label" }]);
  assert.deepEqual(
    getStageActions(state.stages.a!).map((a) => a.identifier),
    ["skip"],
  );
});

test("a stage blocked after its last retry, or by a person, concludes failure", () => {
  for (const blockedBy of ["retries", "command", "label"] as const) {
    const state = makePlanState([{ id: "a", status: "blocked", retryAt: null, blockedBy }]);
    assert.deepEqual(getStageCheckState(state.stages.a!), { status: "completed", conclusion: "failure" });
  }
});
