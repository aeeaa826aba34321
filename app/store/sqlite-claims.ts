import type { DatabaseSync } from "node:sqlite";
import type { Row } from "./store-rows.ts";
import { selectDueDeliveryTurns, sqlitePlaceholder } from "./delivery-sql.ts";
import { orderInTurns, readDelivery, readDueTimer, readOutboxEffect } from "./store-rows.ts";
import { EVERY_LANE, type DueTimer, type InboxDelivery, type OutboxEffect } from "./store.ts";

/*
 * Claims for the SQLite store. Each runs inside the caller's `BEGIN IMMEDIATE` transaction, which holds
 * the database's write lock: no other connection or process can claim between the select and the
 * update. A row is free when its `lease_until <= now`.
 */

const planColumns = "p.installation_id, p.owner, p.repo, p.pr, p.plan_path";

/**
 * Per plan, the oldest pending effect of its lowest pending lane, if it is free and due and no
 * other effect of the plan is leased; lower lanes first; leased to `owner`.
 */
export function claimSqliteEffects(
  db: DatabaseSync,
  owner: string,
  limit: number,
  leaseUntil: number,
  now: number,
  maxLane = EVERY_LANE,
): OutboxEffect[] {
  const rows: Row[] = db
    .prepare(
      `SELECT o.seq, o.key, o.effect, o.attempts, o.last_error, o.enqueued_at, ${planColumns}
       FROM loom_outbox o JOIN loom_plans p ON p.plan_key = o.plan_key
       WHERE o.status = 'pending' AND o.available_at <= ? AND o.lease_until <= ? AND o.lane <= ?
         AND NOT EXISTS (SELECT 1 FROM loom_outbox e
                         WHERE e.plan_key = o.plan_key AND e.status = 'pending' AND e.seq <> o.seq
                           AND (e.lane < o.lane OR (e.lane = o.lane AND e.seq < o.seq) OR e.lease_until > ?))
       ORDER BY o.lane, o.seq LIMIT ?`,
    )
    .all(now, now, maxLane, now, limit);
  const lease = db.prepare(
    "UPDATE loom_outbox SET lease_owner = ?, lease_until = ?, attempts = attempts + 1 WHERE seq = ?",
  );
  return rows.map((row) => {
    lease.run(owner, leaseUntil, Number(row["seq"]));
    return readOutboxEffect({ ...row, attempts: Number(row["attempts"]) + 1, lease_until: leaseUntil });
  });
}

/** Unprocessed, free and due deliveries, installations in turn (`selectDueDeliveryTurns`); leased to `owner`. */
export function claimSqliteDeliveries(
  db: DatabaseSync,
  owner: string,
  limit: number,
  leaseUntil: number,
  now: number,
): InboxDelivery[] {
  const rows: Row[] = db
    .prepare(
      `UPDATE loom_deliveries SET lease_owner = ?3, lease_until = ?4, attempts = attempts + 1
       WHERE seq IN (SELECT seq FROM (${selectDueDeliveryTurns(sqlitePlaceholder)}) ORDER BY turn, seq LIMIT ?2)
       RETURNING seq, id, name, payload, received_at, attempts, lease_until, last_error, installation_id`,
    )
    .all(now, limit, owner, leaseUntil);
  return orderInTurns(rows).map(readDelivery);
}

/** Free timers with `at <= now`, earliest first; leased to `owner`. */
export function claimSqliteTimers(
  db: DatabaseSync,
  owner: string,
  limit: number,
  leaseUntil: number,
  now: number,
): DueTimer[] {
  const rows: Row[] = db
    .prepare(
      `SELECT t.plan_key, t.key, t.at, ${planColumns}
       FROM loom_timers t JOIN loom_plans p ON p.plan_key = t.plan_key
       WHERE t.at <= ? AND t.lease_until <= ? ORDER BY t.at, t.plan_key, t.key LIMIT ?`,
    )
    .all(now, now, limit);
  const lease = db.prepare(
    "UPDATE loom_timers SET lease_owner = ?, lease_until = ? WHERE plan_key = ? AND key = ?",
  );
  return rows.map((row) => {
    lease.run(owner, leaseUntil, String(row["plan_key"]), String(row["key"]));
    return readDueTimer(row);
  });
}

/** Frees what `owner` still holds (see `Store.releaseLeases`); in the caller's transaction. */
export function releaseSqliteLeases(db: DatabaseSync, owner: string): number {
  const free = (sql: string): number => Number(db.prepare(sql).run(owner).changes);
  return (
    free(
      "UPDATE loom_outbox SET lease_owner = NULL, lease_until = 0 WHERE lease_owner = ? AND status = 'pending'",
    ) +
    free(
      "UPDATE loom_deliveries SET lease_owner = NULL, lease_until = 0 WHERE lease_owner = ? AND completed_at IS NULL",
    ) +
    free("UPDATE loom_timers SET lease_owner = NULL, lease_until = 0 WHERE lease_owner = ?")
  );
}
