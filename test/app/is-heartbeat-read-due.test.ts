import assert from "node:assert/strict";
import { test } from "node:test";
import { isHeartbeatReadDue } from "../../app/engine/reconcile-plans.ts";

/*
 * When the reconcile reads a running session's heartbeats: once its silence reaches half the
 * heartbeat timeout (2.5 min of the default 5), so a live session is read before it could be judged
 * hung, and not on every reconcile (the reads a running stage costs, issue 13).
 */

const settings = { heartbeatTimeoutMs: 300_000 };

test("a running session is read once silent for half the heartbeat timeout, not before", () => {
  const lastSeenAt = 1_000_000;
  assert.equal(isHeartbeatReadDue({ status: "running", lastSeenAt }, settings, lastSeenAt + 149_999), false);
  assert.equal(isHeartbeatReadDue({ status: "running", lastSeenAt }, settings, lastSeenAt + 150_000), true);
  assert.equal(isHeartbeatReadDue({ status: "running", lastSeenAt }, settings, lastSeenAt + 600_000), true);
});

test("a session that is not running (still spawning, ended) has no heartbeats to read", () => {
  for (const status of ["spawning", "completed", "failed", "hung"])
    assert.equal(isHeartbeatReadDue({ status, lastSeenAt: 0 }, settings, 600_000), false, status);
});
