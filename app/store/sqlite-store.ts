import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { SQLInputValue } from "node:sqlite";
import { sqliteMigrations } from "./schema-sqlite.ts";
import type { Migration } from "./schema-version.ts";
import { planMigrations } from "./schema-version.ts";
import { commitSqlitePlan, runImmediate, tryBeginImmediate } from "./sqlite-commit-plan.ts";
import { openWriteGate, type SqliteWriteGate } from "./sqlite-write-gate.ts";
import {
  claimSqliteDeliveries,
  claimSqliteEffects,
  claimSqliteTimers,
  releaseSqliteLeases,
} from "./sqlite-claims.ts";
import { deliveryValues, insertDelivery, sqlitePlaceholder, selectNewerDelivery } from "./delivery-sql.ts";
import type { Row } from "./store-rows.ts";
import {
  formatPullKey,
  readBacklog,
  readDeliveryRecord,
  readEffectRecord,
  readPlanRecord,
  writeJson,
} from "./store-rows.ts";
import type { DeliveryInput, Store } from "./store.ts";
import { formatPlanKey } from "./store.ts";

/** A plan row's columns with its parts aggregated in the same statement (one snapshot of both). */
const PLAN_COLUMNS =
  "p.*, (SELECT json_group_object(pp.name, pp.value) FROM loom_plan_parts pp WHERE pp.plan_key = p.plan_key) AS parts";

export type SqliteStoreOptions = {
  /** Database file (created with its directory), or `:memory:` for one connection only. */
  path: string;
  /** How long a writer waits for another process's write lock, ms (default 10 s). */
  busyTimeoutMs?: number;
  /** The schema steps (default loom's; tests pass others). */
  migrations?: readonly Migration[];
  /** Shared with another connection of this process: whose writes come first (`SqliteWriteGate`). */
  writeGate?: SqliteWriteGate;
};

/**
 * The embedded store: one SQLite file through `node:sqlite`. WAL mode lets readers and one writer
 * work at once; every write and every claim runs in `BEGIN IMMEDIATE`, so several processes sharing
 * the file serialise their writes and a claimed row is leased to one of them. The calls are
 * synchronous underneath: a process waiting for the write lock blocks for at most the busy timeout.
 *
 * Durability: a commit that loom acts on outside the database is synced to disk before it returns
 * (`synchronous = FULL`): recording a delivery (GitHub gets its answer after it) and claiming
 * deliveries and effects (GitHub requests follow). Every other commit (state, completions, leases
 * released) uses `synchronous = NORMAL`, which WAL keeps consistent and which the next synced
 * commit makes durable too: an OS crash or power loss can only roll back a tail of commits that
 * nothing outside has seen, and that work is redone from the recorded deliveries and claims (a
 * re-claimed effect looks before it acts). One fsync per delivery instead of four or more: on a
 * disk where a sync takes 2 ms, the synchronous calls would otherwise hold the event loop, and
 * the webhook answers with it, for seconds under a burst.
 */
export function createSqliteStore(options: SqliteStoreOptions): Store {
  if (options.path !== ":memory:") mkdirSync(dirname(options.path), { recursive: true });
  const busyTimeoutMs = options.busyTimeoutMs ?? 10_000;
  const db = new DatabaseSync(options.path, { timeout: busyTimeoutMs });
  db.exec("PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;");
  /** Runs `work` with its commit synced to disk before it returns (see above). */
  const synced = <T>(work: () => T): T => {
    db.exec("PRAGMA synchronous = FULL");
    try {
      return work();
    } finally {
      db.exec("PRAGMA synchronous = NORMAL");
    }
  };
  const gate = openWriteGate(options.writeGate, busyTimeoutMs);
  const all = (sql: string, ...params: SQLInputValue[]): Row[] => db.prepare(sql).all(...params);
  // A write outside a transaction takes the write lock too (inside one, it is held already).
  const run = (sql: string, ...params: SQLInputValue[]): number => {
    if (!db.isTransaction) gate.yieldToPriority();
    return Number(db.prepare(sql).run(...params).changes);
  };
  const transact = <T>(work: () => T): T => {
    gate.yieldToPriority();
    return runImmediate(db, work);
  };

  /*
   * Group commit: the deliveries that arrive while the process is busy are recorded together, in one
   * synced transaction, on the next turn of the event loop (one fsync for a burst, not one each).
   * Each caller still gets its answer only once its delivery is on disk. While another connection
   * (`npm start`'s drain thread, a replica) holds the write lock, the batch waits on the event loop,
   * a millisecond at a time, not in SQLite's busy handler, which would hold this thread and every
   * webhook answer on it; deliveries arriving meanwhile join it. Bounded by the busy timeout.
   */
  let recording: {
    delivery: DeliveryInput;
    resolve: (fresh: boolean) => void;
    reject: (error: unknown) => void;
  }[] = [];
  /** Since when the waiting batch has found the write lock taken (null: not waiting for it). */
  let lockedSince: number | null = null;
  const recordWaiting = (): void => {
    let batch: typeof recording = [];
    try {
      const fresh = synced(() => {
        if (!tryBeginImmediate(db, busyTimeoutMs)) return null;
        batch = recording;
        recording = [];
        try {
          const inserted = batch.map(
            ({ delivery }) => run(insertDelivery(sqlitePlaceholder), ...deliveryValues(delivery)) === 1,
          );
          db.exec("COMMIT");
          return inserted;
        } catch (error) {
          if (db.isTransaction) db.exec("ROLLBACK");
          throw error;
        }
      });
      if (fresh === null) {
        if (lockedSince === null) {
          lockedSince = performance.now();
          gate.raise();
        }
        if (performance.now() - lockedSince < busyTimeoutMs) {
          setTimeout(recordWaiting, 1);
          return;
        }
        throw new Error(`the SQLite write lock was not free within ${busyTimeoutMs} ms`);
      }
      batch.forEach(({ resolve }, index) => resolve(fresh[index] === true));
    } catch (error) {
      // The batch taken (rolled back), or, when it failed before, every delivery waiting.
      for (const { reject } of [...batch, ...recording.splice(0)]) reject(error);
    } finally {
      if (recording.length === 0 && lockedSince !== null) {
        lockedSince = null;
        gate.lower();
      }
    }
  };

  return {
    kind: "sqlite",

    migrate() {
      return settle(() =>
        transact(() => {
          db.exec(
            "CREATE TABLE IF NOT EXISTS loom_schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)",
          );
          const applied = all("SELECT version FROM loom_schema_migrations").map((r) => Number(r["version"]));
          for (const migration of planMigrations("sqlite", applied, options.migrations ?? sqliteMigrations)) {
            db.exec(migration.sql);
            run(
              "INSERT INTO loom_schema_migrations (version, applied_at) VALUES (?, ?)",
              migration.version,
              Date.now(),
            );
          }
        }),
      );
    },

    schemaVersion() {
      const exists = all(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'loom_schema_migrations'",
      );
      if (exists.length === 0) return Promise.resolve(0);
      const rows = all("SELECT COALESCE(MAX(version), 0) AS version FROM loom_schema_migrations");
      return Promise.resolve(Number(rows[0]?.["version"] ?? 0));
    },

    countBacklog() {
      const rows = all(
        `SELECT (SELECT COUNT(*) FROM loom_deliveries WHERE completed_at IS NULL) AS deliveries,
                (SELECT COUNT(*) FROM loom_outbox WHERE status = 'pending') AS effects,
                (SELECT COUNT(*) FROM loom_timers) AS timers`,
      );
      return Promise.resolve(readBacklog(rows[0] ?? {}));
    },

    close() {
      if (db.isOpen) db.close();
      return Promise.resolve();
    },

    ping() {
      try {
        all("SELECT 1");
        return Promise.resolve();
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    },

    getPlan(key) {
      const rows = all(`SELECT ${PLAN_COLUMNS} FROM loom_plans p WHERE plan_key = ?`, formatPlanKey(key));
      return Promise.resolve(rows[0] === undefined ? null : readPlanRecord(rows[0]));
    },

    listActivePlans() {
      return Promise.resolve(
        all(`SELECT ${PLAN_COLUMNS} FROM loom_plans p WHERE active = 1 ORDER BY updated_at, plan_key`).map(
          readPlanRecord,
        ),
      );
    },

    listPlans(filter) {
      const rows =
        filter === undefined
          ? all(`SELECT ${PLAN_COLUMNS} FROM loom_plans p ORDER BY updated_at, plan_key`)
          : all(
              `SELECT ${PLAN_COLUMNS} FROM loom_plans p WHERE lower(owner) = lower(?) AND lower(repo) = lower(?) ORDER BY updated_at, plan_key`,
              filter.owner,
              filter.repo,
            );
      return Promise.resolve(rows.map(readPlanRecord));
    },

    listPlansForPull(owner, repo, pr) {
      const rows = all(
        `SELECT ${PLAN_COLUMNS} FROM loom_plans p WHERE pull_key = ? ORDER BY plan_path`,
        formatPullKey(owner, repo, pr),
      );
      return Promise.resolve(rows.map(readPlanRecord));
    },

    commitPlan(key, input) {
      return Promise.resolve(transact(() => commitSqlitePlan(db, key, input)));
    },

    claimEffects(owner, limit, leaseMs, now, maxLane) {
      return Promise.resolve(
        synced(() => transact(() => claimSqliteEffects(db, owner, limit, now + leaseMs, now, maxLane))),
      );
    },

    completeEffect(key, result, now) {
      const changes = run(
        `UPDATE loom_outbox SET status = 'done', result = ?, completed_at = ?, lease_owner = NULL, lease_until = 0
         WHERE key = ? AND status = 'pending'`,
        writeJson(result),
        now,
        key,
      );
      return Promise.resolve(changes === 1);
    },

    failEffect(key, error, retryAt) {
      const changes = run(
        `UPDATE loom_outbox SET status = ?, last_error = ?, available_at = ?, lease_owner = NULL, lease_until = 0
         WHERE key = ? AND status = 'pending'`,
        retryAt === null ? "dead" : "pending",
        error,
        retryAt ?? 0,
        key,
      );
      return Promise.resolve(changes === 1);
    },

    getEffect(key) {
      const rows = all(
        `SELECT o.*, p.installation_id, p.owner, p.repo, p.pr, p.plan_path
         FROM loom_outbox o JOIN loom_plans p ON p.plan_key = o.plan_key WHERE o.key = ?`,
        key,
      );
      return Promise.resolve(rows[0] === undefined ? null : readEffectRecord(rows[0]));
    },

    recordDelivery(delivery) {
      return new Promise<boolean>((resolve, reject) => {
        recording.push({ delivery, resolve, reject });
        if (recording.length === 1) setImmediate(recordWaiting);
      });
    },

    claimDeliveries(owner, limit, leaseMs, now) {
      return Promise.resolve(
        synced(() => transact(() => claimSqliteDeliveries(db, owner, limit, now + leaseMs, now))),
      );
    },

    hasNewerDelivery(id) {
      return Promise.resolve(all(selectNewerDelivery(sqlitePlaceholder), id).length > 0);
    },

    completeDelivery(id, now, error) {
      run(
        "UPDATE loom_deliveries SET completed_at = ?, error = ?, lease_owner = NULL, lease_until = 0 WHERE id = ?",
        now,
        error ?? null,
        id,
      );
      return Promise.resolve();
    },

    failDelivery(id, error, retryAt) {
      const changes = run(
        `UPDATE loom_deliveries SET last_error = ?, available_at = ?, lease_owner = NULL, lease_until = 0
         WHERE id = ? AND completed_at IS NULL`,
        error,
        retryAt,
        id,
      );
      return Promise.resolve(changes === 1);
    },

    getDelivery(id) {
      const rows = all("SELECT * FROM loom_deliveries WHERE id = ?", id);
      return Promise.resolve(rows[0] === undefined ? null : readDeliveryRecord(rows[0]));
    },

    pruneDeliveries(olderThan) {
      return Promise.resolve(
        run("DELETE FROM loom_deliveries WHERE completed_at IS NOT NULL AND completed_at < ?", olderThan),
      );
    },

    claimDueTimers(owner, now, limit, leaseMs) {
      return Promise.resolve(transact(() => claimSqliteTimers(db, owner, limit, now + leaseMs, now)));
    },

    deleteTimer(timer) {
      const changes = run(
        "DELETE FROM loom_timers WHERE plan_key = ? AND key = ? AND at = ?",
        formatPlanKey(timer.planKey),
        timer.key,
        timer.at,
      );
      return Promise.resolve(changes === 1);
    },

    releaseLeases(owner) {
      return Promise.resolve(transact(() => releaseSqliteLeases(db, owner)));
    },
  };
}

/** The synchronous `work` as a promise: a throw becomes a rejection, as callers of an async store expect. */
function settle<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}
