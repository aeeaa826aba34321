import pg from "pg";
import type { PoolClient } from "pg";
import { commitPostgresPlan, runTransaction } from "./postgres-commit-plan.ts";
import { postgresMigrations } from "./schema-postgres.ts";
import type { Migration } from "./schema-version.ts";
import { planMigrations } from "./schema-version.ts";
import {
  claimPostgresDeliveries,
  claimPostgresEffects,
  claimPostgresTimers,
  releasePostgresLeases,
} from "./postgres-claims.ts";
import { deliveryValues, insertDelivery, postgresPlaceholder, selectNewerDelivery } from "./delivery-sql.ts";
import type { Row } from "./store-rows.ts";
import {
  formatPullKey,
  readBacklog,
  readDeliveryRecord,
  readEffectRecord,
  readPlanRecord,
  writeJson,
} from "./store-rows.ts";
import type { Store } from "./store.ts";
import { formatPlanKey } from "./store.ts";

/** A plan row's columns with its parts aggregated in the same statement (one snapshot of both). */
const PLAN_COLUMNS =
  "p.*, (SELECT json_object_agg(pp.name, pp.value)::text FROM loom_plan_parts pp WHERE pp.plan_key = p.plan_key) AS parts";

export type PostgresStoreOptions = {
  /** A `postgres://` URL (`DATABASE_URL`). */
  connectionString: string;
  /** Schema for loom's tables (created by `migrate`); default: the connection's search_path. */
  schema?: string;
  /** Pool size per process (default 5). */
  maxConnections?: number;
  /** Called when an idle pooled connection fails (default: printed to stderr). */
  onError?: (error: Error) => void;
  /** The schema steps (default loom's; tests pass others). */
  migrations?: readonly Migration[];
};

/** Serialises `migrate` across replicas (any constant; "loom" in ASCII). */
const migrationLockKey = 0x6c6f6f6d;
const schemaPattern = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The store for several replicas: PostgreSQL through a `pg` pool. Plan commits are one transaction
 * (the CAS `UPDATE … WHERE version = $n` makes a concurrent committer wait, then see the new version
 * and report a conflict); claims are one `UPDATE … FROM (SELECT … FOR UPDATE SKIP LOCKED)` statement.
 */
export function createPostgresStore(options: PostgresStoreOptions): Store {
  const schema = options.schema;
  if (schema !== undefined && !schemaPattern.test(schema)) throw new Error(`invalid schema name: ${schema}`);
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.maxConnections ?? 5,
    ...(schema === undefined ? {} : { options: `-c search_path=${schema}` }),
  });
  pool.on(
    "error",
    options.onError ?? ((error) => console.error("loom store: idle PostgreSQL client failed", error)),
  );
  const query = async (sql: string, params: unknown[] = []): Promise<Row[]> =>
    (await pool.query<Row>(sql, params)).rows;
  const transact = <T>(work: (client: PoolClient) => Promise<T>) => runTransaction(pool, work);

  return {
    kind: "postgres",

    async migrate() {
      await transact(async (c) => {
        await c.query("SELECT pg_advisory_xact_lock($1)", [migrationLockKey]);
        if (schema !== undefined) {
          await c.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
          await c.query(`SET LOCAL search_path TO "${schema}"`);
        }
        await c.query(
          "CREATE TABLE IF NOT EXISTS loom_schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)",
        );
        const applied = (await c.query<Row>("SELECT version FROM loom_schema_migrations")).rows.map((r) =>
          Number(r["version"]),
        );
        for (const migration of planMigrations(
          "postgres",
          applied,
          options.migrations ?? postgresMigrations,
        )) {
          await c.query(migration.sql);
          await c.query("INSERT INTO loom_schema_migrations (version, applied_at) VALUES ($1, $2)", [
            migration.version,
            Date.now(),
          ]);
        }
      });
    },

    async schemaVersion() {
      const [table] = await query("SELECT to_regclass('loom_schema_migrations') IS NOT NULL AS present");
      if (table?.["present"] !== true) return 0;
      const [row] = await query("SELECT COALESCE(MAX(version), 0) AS version FROM loom_schema_migrations");
      return Number(row?.["version"] ?? 0);
    },

    async countBacklog() {
      const [row] = await query(
        `SELECT (SELECT COUNT(*) FROM loom_deliveries WHERE completed_at IS NULL) AS deliveries,
                (SELECT COUNT(*) FROM loom_outbox WHERE status = 'pending') AS effects,
                (SELECT COUNT(*) FROM loom_timers) AS timers`,
      );
      return readBacklog(row ?? {});
    },

    async close() {
      if (!pool.ended) await pool.end();
    },

    async ping() {
      await query("SELECT 1");
    },

    async getPlan(key) {
      const rows = await query(`SELECT ${PLAN_COLUMNS} FROM loom_plans p WHERE plan_key = $1`, [
        formatPlanKey(key),
      ]);
      return rows[0] === undefined ? null : readPlanRecord(rows[0]);
    },

    async listActivePlans() {
      return (
        await query(`SELECT ${PLAN_COLUMNS} FROM loom_plans p WHERE active ORDER BY updated_at, plan_key`)
      ).map(readPlanRecord);
    },

    async listPlans(filter) {
      const rows =
        filter === undefined
          ? await query(`SELECT ${PLAN_COLUMNS} FROM loom_plans p ORDER BY updated_at, plan_key`, [])
          : await query(
              `SELECT ${PLAN_COLUMNS} FROM loom_plans p WHERE lower(owner) = lower($1) AND lower(repo) = lower($2) ORDER BY updated_at, plan_key`,
              [filter.owner, filter.repo],
            );
      return rows.map(readPlanRecord);
    },

    async listPlansForPull(owner, repo, pr) {
      const rows = await query(
        `SELECT ${PLAN_COLUMNS} FROM loom_plans p WHERE pull_key = $1 ORDER BY plan_path`,
        [formatPullKey(owner, repo, pr)],
      );
      return rows.map(readPlanRecord);
    },

    commitPlan(key, input) {
      return transact((c) => commitPostgresPlan(c, key, input));
    },

    claimEffects(owner, limit, leaseMs, now, maxLane) {
      return claimPostgresEffects(pool, owner, limit, now + leaseMs, now, maxLane);
    },

    async completeEffect(key, result, now) {
      const r = await pool.query(
        `UPDATE loom_outbox SET status = 'done', result = $1, completed_at = $2, lease_owner = NULL, lease_until = 0
         WHERE key = $3 AND status = 'pending'`,
        [writeJson(result), now, key],
      );
      return r.rowCount === 1;
    },

    async failEffect(key, error, retryAt) {
      const r = await pool.query(
        `UPDATE loom_outbox SET status = $1, last_error = $2, available_at = $3, lease_owner = NULL, lease_until = 0
         WHERE key = $4 AND status = 'pending'`,
        [retryAt === null ? "dead" : "pending", error, retryAt ?? 0, key],
      );
      return r.rowCount === 1;
    },

    async getEffect(key) {
      const rows = await query(
        `SELECT o.*, p.installation_id, p.owner, p.repo, p.pr, p.plan_path
         FROM loom_outbox o JOIN loom_plans p ON p.plan_key = o.plan_key WHERE o.key = $1`,
        [key],
      );
      return rows[0] === undefined ? null : readEffectRecord(rows[0]);
    },

    async recordDelivery(delivery) {
      const r = await pool.query(insertDelivery(postgresPlaceholder), deliveryValues(delivery));
      return r.rowCount === 1;
    },

    claimDeliveries(owner, limit, leaseMs, now) {
      return claimPostgresDeliveries(pool, owner, limit, now + leaseMs, now);
    },

    async hasNewerDelivery(id) {
      return (await query(selectNewerDelivery(postgresPlaceholder), [id])).length > 0;
    },

    async completeDelivery(id, now, error) {
      await pool.query(
        "UPDATE loom_deliveries SET completed_at = $1, error = $2, lease_owner = NULL, lease_until = 0 WHERE id = $3",
        [now, error ?? null, id],
      );
    },

    async failDelivery(id, error, retryAt) {
      const r = await pool.query(
        `UPDATE loom_deliveries SET last_error = $1, available_at = $2, lease_owner = NULL, lease_until = 0
         WHERE id = $3 AND completed_at IS NULL`,
        [error, retryAt, id],
      );
      return r.rowCount === 1;
    },

    async getDelivery(id) {
      const rows = await query("SELECT * FROM loom_deliveries WHERE id = $1", [id]);
      return rows[0] === undefined ? null : readDeliveryRecord(rows[0]);
    },

    async pruneDeliveries(olderThan) {
      const r = await pool.query(
        "DELETE FROM loom_deliveries WHERE completed_at IS NOT NULL AND completed_at < $1",
        [olderThan],
      );
      return r.rowCount ?? 0;
    },

    claimDueTimers(owner, now, limit, leaseMs) {
      return claimPostgresTimers(pool, owner, limit, now + leaseMs, now);
    },

    async deleteTimer(timer) {
      const r = await pool.query("DELETE FROM loom_timers WHERE plan_key = $1 AND key = $2 AND at = $3", [
        formatPlanKey(timer.planKey),
        timer.key,
        timer.at,
      ]);
      return r.rowCount === 1;
    },

    releaseLeases(owner) {
      return releasePostgresLeases(pool, owner);
    },
  };
}
