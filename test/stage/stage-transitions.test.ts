import { test } from "node:test";
import assert from "node:assert/strict";
import { STAGE_STATUSES, SESSION_STATUSES } from "../../src/stage/stage-status.ts";
import type { StageStatus } from "../../src/stage/stage-status.ts";
import { isTerminalStage, transitionStage } from "../../src/stage/stage-transitions.ts";
import { isActiveSession, transitionSession } from "../../src/stage/session-transitions.ts";

const allowed: [StageStatus, StageStatus][] = [
  ["waiting-for-deps", "queued"],
  ["queued", "executing"],
  ["executing", "completed"],
  ["executing", "needs-handoff"],
  ["needs-handoff", "queued"],
  ["executing", "blocked"],
  ["blocked", "queued"],
  ["blocked", "skipped"],
  ["executing", "completed-with-failures"],
  ["completed-with-failures", "queued"],
  ["merge-conflict", "completed"],
  ["merge-blocked", "completed"],
  // GitHub additions: the merge runs after the run completed.
  ["completed", "merge-conflict"],
  ["completed", "merge-blocked"],
  ["executing", "skipped"],
];

const refused: [StageStatus, StageStatus][] = [
  ["waiting-for-deps", "executing"],
  ["waiting-for-deps", "completed"],
  ["skipped", "queued"],
  ["skipped", "executing"],
  ["needs-handoff", "completed"],
  ["completed", "queued"],
  ["completed", "executing"],
];

for (const [from, to] of allowed) {
  test(`a stage may go from ${from} to ${to}`, () => {
    assert.deepEqual(transitionStage(from, to), { ok: true });
  });
}

for (const [from, to] of refused) {
  test(`a stage may not go from ${from} to ${to}, and says why instead of throwing`, () => {
    const result = transitionStage(from, to);
    assert.equal(result.ok, false);
    assert.match(result.ok ? "" : result.reason, new RegExp(`${from}.*${to}`));
  });
}

test("a completed and merged stage is final: not even a merge problem moves it", () => {
  for (const to of STAGE_STATUSES.filter((status) => status !== "completed")) {
    assert.equal(transitionStage("completed", to, { merged: true }).ok, false, to);
  }
  // Only a re-open (`/loom continue`, a re-run) moves it, and only back in line for a new attempt.
  for (const to of STAGE_STATUSES.filter((status) => status !== "completed"))
    assert.equal(
      transitionStage("completed", to, { merged: true, reopen: true }).ok,
      to === "queued" || to === "waiting-for-deps",
      to,
    );
  assert.equal(isTerminalStage({ status: "completed", merged: true }), true);
  assert.equal(isTerminalStage({ status: "completed", merged: false }), false);
  assert.equal(isTerminalStage({ status: "skipped", merged: false }), true);
});

test("skipped is final and staying put is always allowed", () => {
  for (const to of STAGE_STATUSES) {
    assert.equal(transitionStage("skipped", to).ok, to === "skipped", to);
    assert.equal(transitionStage(to, to).ok, true);
  }
});

test("sessions go spawning → running → one end, and ends are final", () => {
  assert.equal(transitionSession("spawning", "running").ok, true);
  assert.equal(transitionSession("running", "hung").ok, true);
  assert.equal(transitionSession("spawning", "crashed").ok, true);
  assert.equal(transitionSession("running", "spawning").ok, false);
  for (const end of SESSION_STATUSES.filter((s) => s !== "spawning" && s !== "running")) {
    assert.equal(isActiveSession({ status: end }), false);
    for (const to of SESSION_STATUSES)
      assert.equal(transitionSession(end, to).ok, to === end, `${end} → ${to}`);
  }
});
