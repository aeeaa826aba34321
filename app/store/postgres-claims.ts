import type pg from "pg";
import type { Row } from "./store-rows.ts";
import { postgresPlaceholder, selectDueDeliveryTurns } from "./delivery-sql.ts";
import { orderInTurns, readDelivery, readDueTimer, readOutboxEffect } from "./store-rows.ts";
import { EVERY_LANE, type DueTimer, type InboxDelivery, type OutboxEffect } from "./store.ts";

/*
 * Claims for the PostgreSQL store, each ONE statement: the inner SELECT locks its candidates with
 * `FOR UPDATE SKIP LOCKED` (rows another claimer is taking are skipped, not waited for; a row another
 * claimer has just leased is re-checked on its new version and dropped), the outer UPDATE leases them.
 * A row is free when its `lease_until <= now`.
 */

const planColumns = "p.installation_id, p.owner, p.repo, p.pr, p.plan_path";

function bySeq(a: Row, b: Row): number {
  return Number(a["seq"]) - Number(b["seq"]);
}

/**
 * Per plan, the oldest pending effect of its lowest pending lane, if it is free and due and no
 * other effect of the plan is leased; lower lanes first; leased to `owner`.
 */
export async function claimPostgresEffects(
  pool: pg.Pool,
  owner: string,
  limit: number,
  leaseUntil: number,
  now: number,
  maxLane = EVERY_LANE,
): Promise<OutboxEffect[]> {
  const { rows } = await pool.query<Row>(
    `WITH candidates AS (
       SELECT o.seq FROM loom_outbox o
       WHERE o.status = 'pending' AND o.available_at <= $1 AND o.lease_until <= $1 AND o.lane <= $5
         AND NOT EXISTS (SELECT 1 FROM loom_outbox e
                         WHERE e.plan_key = o.plan_key AND e.status = 'pending' AND e.seq <> o.seq
                           AND (e.lane < o.lane OR (e.lane = o.lane AND e.seq < o.seq) OR e.lease_until > $1))
       ORDER BY o.lane, o.seq LIMIT $2
       FOR UPDATE SKIP LOCKED
     )
     UPDATE loom_outbox o SET lease_owner = $3, lease_until = $4, attempts = o.attempts + 1
     FROM candidates c, loom_plans p
     WHERE o.seq = c.seq AND p.plan_key = o.plan_key
     RETURNING o.seq, o.key, o.effect, o.attempts, o.last_error, o.lease_until, o.enqueued_at, ${planColumns}`,
    [now, limit, owner, leaseUntil, maxLane],
  );
  return rows.sort(bySeq).map(readOutboxEffect);
}

/** Turns counted per claimed row: claimers racing for the same first rows still find others. */
const SPARE_CANDIDATES = 4;

/**
 * Unprocessed, free and due deliveries, installations in turn (`selectDueDeliveryTurns`); leased to
 * `owner`. The turns are counted once without locks (materialized: the planner, misled by a table
 * not yet analysed, would otherwise count them again for every row), for a few times `limit` rows;
 * those are then locked in turn order, skipping rows another claimer holds (and re-checking each on
 * its newest version).
 */
export async function claimPostgresDeliveries(
  pool: pg.Pool,
  owner: string,
  limit: number,
  leaseUntil: number,
  now: number,
): Promise<InboxDelivery[]> {
  const { rows } = await pool.query<Row>(
    `WITH picked AS MATERIALIZED (
       SELECT seq, turn FROM (${selectDueDeliveryTurns(postgresPlaceholder)}) turns
       ORDER BY turn, seq LIMIT $2 * ${SPARE_CANDIDATES}
     ),
     candidates AS (
       SELECT d.seq FROM loom_deliveries d JOIN picked p ON p.seq = d.seq
       WHERE d.completed_at IS NULL AND d.lease_until <= $1 AND d.available_at <= $1
       ORDER BY p.turn, d.seq LIMIT $2
       FOR UPDATE OF d SKIP LOCKED
     )
     UPDATE loom_deliveries d SET lease_owner = $3, lease_until = $4, attempts = d.attempts + 1
     FROM candidates c WHERE d.seq = c.seq
     RETURNING d.seq, d.id, d.name, d.payload, d.received_at, d.attempts, d.lease_until, d.last_error,
               d.installation_id`,
    [now, limit, owner, leaseUntil],
  );
  return orderInTurns(rows).map(readDelivery);
}

/** Free timers with `at <= now`, earliest first; leased to `owner`. */
export async function claimPostgresTimers(
  pool: pg.Pool,
  owner: string,
  limit: number,
  leaseUntil: number,
  now: number,
): Promise<DueTimer[]> {
  const { rows } = await pool.query<Row>(
    `WITH candidates AS (
       SELECT plan_key, key FROM loom_timers
       WHERE at <= $1 AND lease_until <= $1
       ORDER BY at, plan_key, key LIMIT $2
       FOR UPDATE SKIP LOCKED
     )
     UPDATE loom_timers t SET lease_owner = $3, lease_until = $4
     FROM candidates c, loom_plans p
     WHERE t.plan_key = c.plan_key AND t.key = c.key AND p.plan_key = t.plan_key
     RETURNING t.key, t.at, ${planColumns}`,
    [now, limit, owner, leaseUntil],
  );
  return rows.map(readDueTimer).sort((a, b) => a.at - b.at);
}

/** Frees what `owner` still holds (see `Store.releaseLeases`), in one statement. */
export async function releasePostgresLeases(pool: pg.Pool, owner: string): Promise<number> {
  const { rows } = await pool.query<Row>(
    `WITH effects AS (
       UPDATE loom_outbox SET lease_owner = NULL, lease_until = 0
       WHERE lease_owner = $1 AND status = 'pending' RETURNING 1
     ), deliveries AS (
       UPDATE loom_deliveries SET lease_owner = NULL, lease_until = 0
       WHERE lease_owner = $1 AND completed_at IS NULL RETURNING 1
     ), timers AS (
       UPDATE loom_timers SET lease_owner = NULL, lease_until = 0 WHERE lease_owner = $1 RETURNING 1
     )
     SELECT (SELECT count(*) FROM effects) + (SELECT count(*) FROM deliveries)
            + (SELECT count(*) FROM timers) AS freed`,
    [owner],
  );
  return Number(rows[0]?.["freed"] ?? 0);
}
