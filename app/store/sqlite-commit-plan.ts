import type { DatabaseSync } from "node:sqlite";
import { formatPullKey, writeJson } from "./store-rows.ts";
import type { CommitPlanInput, CommitPlanResult, PlanKey } from "./store.ts";
import { formatPlanKey } from "./store.ts";

/** Runs `work` in `BEGIN IMMEDIATE … COMMIT` (the write lock is taken up front), rolling back on throw. */
export function runImmediate<T>(db: DatabaseSync, work: () => T): T {
  db.exec("BEGIN IMMEDIATE");
  try {
    const result = work();
    db.exec("COMMIT");
    return result;
  } catch (error) {
    if (db.isTransaction) db.exec("ROLLBACK");
    throw error;
  }
}

/** SQLite's result code for "database is locked": another connection holds the write lock. */
const SQLITE_BUSY = 5;

/**
 * `BEGIN IMMEDIATE` without waiting: false, and no transaction, when another connection holds the
 * write lock. SQLite's own wait (the busy timeout, `busyTimeoutMs`, restored after) sleeps inside
 * the call, holding the thread and its event loop; a caller that must keep its loop free waits on
 * the loop instead and tries again.
 */
export function tryBeginImmediate(db: DatabaseSync, busyTimeoutMs: number): boolean {
  db.exec("PRAGMA busy_timeout = 0");
  try {
    db.exec("BEGIN IMMEDIATE");
    return true;
  } catch (error) {
    if ((error as { errcode?: unknown }).errcode === SQLITE_BUSY) return false;
    throw error;
  } finally {
    db.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
  }
}

/** `Store.commitPlan` for SQLite; call it inside `runImmediate`. */
export function commitSqlitePlan(db: DatabaseSync, key: PlanKey, input: CommitPlanInput): CommitPlanResult {
  const planKey = formatPlanKey(key);
  const now = input.now ?? Date.now();
  const state = writeJson(input.state);
  const active = input.active ? 1 : 0;
  const written =
    input.expectedVersion === 0
      ? db
          .prepare(
            `INSERT INTO loom_plans (plan_key, pull_key, installation_id, owner, repo, pr, plan_path, state, active, version, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?) ON CONFLICT (plan_key) DO NOTHING`,
          )
          .run(
            planKey,
            formatPullKey(key.owner, key.repo, key.pr),
            key.installationId,
            key.owner,
            key.repo,
            key.pr,
            key.planPath,
            state,
            active,
            now,
            now,
          )
      : db
          .prepare(
            `UPDATE loom_plans SET state = ?, active = ?, version = version + 1, updated_at = ?, installation_id = ?
             WHERE plan_key = ? AND version = ?`,
          )
          .run(state, active, now, key.installationId, planKey, input.expectedVersion);
  if (Number(written.changes) !== 1) return { ok: false, reason: "conflict" };
  const setPart = db.prepare(
    `INSERT INTO loom_plan_parts (plan_key, name, value) VALUES (?, ?, ?)
     ON CONFLICT (plan_key, name) DO UPDATE SET value = excluded.value`,
  );
  for (const [name, value] of Object.entries(input.setParts ?? {})) setPart.run(planKey, name, value);
  const dropPart = db.prepare("DELETE FROM loom_plan_parts WHERE plan_key = ? AND name = ?");
  for (const name of input.dropParts ?? []) dropPart.run(planKey, name);
  const enqueue = db.prepare(
    "INSERT INTO loom_outbox (key, plan_key, effect, enqueued_at, lane, available_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING",
  );
  // The replaced effects' earliest due time is kept (RETURNING gives it in the same statement).
  const replace = db.prepare(
    `DELETE FROM loom_outbox WHERE plan_key = ? AND status = 'pending' AND lease_until <= ? AND substr(key, 1, ?) = ?
     RETURNING available_at`,
  );
  for (const e of input.effects) {
    let at = e.availableAt ?? 0;
    if (e.replaces !== undefined)
      for (const row of replace.all(planKey, now, e.replaces.length, e.replaces))
        at = Math.min(at, Number(row["available_at"]));
    enqueue.run(e.key, planKey, writeJson(e.effect), now, e.lane ?? 0, at);
  }
  const upsertTimer = db.prepare(
    `INSERT INTO loom_timers (plan_key, key, at) VALUES (?, ?, ?)
     ON CONFLICT (plan_key, key) DO UPDATE SET at = excluded.at, lease_owner = NULL, lease_until = 0`,
  );
  for (const t of input.timers) upsertTimer.run(planKey, t.key, t.at);
  const cancel = db.prepare("DELETE FROM loom_timers WHERE plan_key = ? AND key = ?");
  for (const k of input.cancelTimers ?? []) cancel.run(planKey, k);
  return { ok: true, version: input.expectedVersion + 1 };
}
