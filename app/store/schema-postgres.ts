import type { Migration } from "./schema-version.ts";

/**
 * PostgreSQL schema, as ordered migrations. Version N is applied once, in one transaction, and recorded in
 * `loom_schema_migrations`. Never edit a released migration: append a new one.
 * JSON columns are TEXT holding `JSON.stringify` text, like SQLite's (jsonb would refuse a `\u0000` in
 * a webhook payload and reorder keys); times are epoch milliseconds.
 */
export const postgresMigrations: readonly Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE loom_plans (
        plan_key TEXT PRIMARY KEY,
        pull_key TEXT NOT NULL,
        installation_id BIGINT NOT NULL,
        owner TEXT NOT NULL,
        repo TEXT NOT NULL,
        pr INTEGER NOT NULL,
        plan_path TEXT NOT NULL,
        state TEXT NOT NULL,
        active BOOLEAN NOT NULL,
        version INTEGER NOT NULL,
        updated_at BIGINT NOT NULL
      );
      CREATE INDEX loom_plans_pull ON loom_plans (pull_key);
      CREATE INDEX loom_plans_active ON loom_plans (updated_at) WHERE active;

      CREATE TABLE loom_outbox (
        seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        key TEXT NOT NULL UNIQUE,
        plan_key TEXT NOT NULL REFERENCES loom_plans (plan_key),
        effect TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending',
        attempts INTEGER NOT NULL DEFAULT 0,
        available_at BIGINT NOT NULL DEFAULT 0,
        lease_owner TEXT,
        lease_until BIGINT NOT NULL DEFAULT 0,
        result TEXT,
        last_error TEXT,
        enqueued_at BIGINT NOT NULL,
        completed_at BIGINT
      );
      CREATE INDEX loom_outbox_pending ON loom_outbox (plan_key, seq) WHERE status = 'pending';

      CREATE TABLE loom_deliveries (
        seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        payload TEXT NOT NULL,
        received_at BIGINT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        lease_owner TEXT,
        lease_until BIGINT NOT NULL DEFAULT 0,
        completed_at BIGINT,
        error TEXT
      );
      CREATE INDEX loom_deliveries_open ON loom_deliveries (seq) WHERE completed_at IS NULL;
      CREATE INDEX loom_deliveries_done ON loom_deliveries (completed_at) WHERE completed_at IS NOT NULL;

      CREATE TABLE loom_timers (
        plan_key TEXT NOT NULL REFERENCES loom_plans (plan_key),
        key TEXT NOT NULL,
        at BIGINT NOT NULL,
        lease_owner TEXT,
        lease_until BIGINT NOT NULL DEFAULT 0,
        PRIMARY KEY (plan_key, key)
      );
      CREATE INDEX loom_timers_at ON loom_timers (at);
    `,
  },
  {
    // 2: when each plan was opened (for the plan duration metric). Plans stored before it take
    // their last update time. Additive: a loom of version 1 still writes (the column has a default).
    version: 2,
    sql: `
      ALTER TABLE loom_plans ADD COLUMN created_at BIGINT NOT NULL DEFAULT 0;
      UPDATE loom_plans SET created_at = updated_at;
    `,
  },
  {
    // 3: a delivery that failed waits for its next attempt (`available_at`) with the error it
    // failed with (`last_error`), instead of for its lease to end. Additive: rows stored before it
    // are due at once and have no error yet; a loom of version 2 still claims and writes them.
    version: 3,
    sql: `
      ALTER TABLE loom_deliveries ADD COLUMN available_at BIGINT NOT NULL DEFAULT 0;
      ALTER TABLE loom_deliveries ADD COLUMN last_error TEXT;
    `,
  },
  {
    // 4: claims serve installations in turn (`installation_id`), and a newer delivery with the same
    // `coalesce_key` supersedes an older one (a burst of pushes costs the work of the last). Additive:
    // rows stored before it have neither, so they share one turn and are never superseded; a loom of
    // version 3 still claims and writes them.
    version: 4,
    sql: `
      ALTER TABLE loom_deliveries ADD COLUMN installation_id BIGINT;
      ALTER TABLE loom_deliveries ADD COLUMN coalesce_key TEXT;
      CREATE INDEX loom_deliveries_coalesce ON loom_deliveries (coalesce_key, seq) WHERE coalesce_key IS NOT NULL;
    `,
  },
  {
    // 5: outbox lanes: a plan's pending effects that move it forward (lane 0) are claimed before
    // those that only show it (lane 1: check runs, the status comment, replies, labels). Additive:
    // rows stored before it are lane 0 unless they are display effects; a loom of version 4 claims
    // them all in order, as before.
    version: 5,
    sql: `
      ALTER TABLE loom_outbox ADD COLUMN lane INTEGER NOT NULL DEFAULT 0;
      UPDATE loom_outbox SET lane = 1
        WHERE status = 'pending' AND (effect::jsonb ->> 'type') IN ('syncCheckRun', 'syncStatusComment', 'reply', 'ensureLabel');
      DROP INDEX loom_outbox_pending;
      CREATE INDEX loom_outbox_pending ON loom_outbox (plan_key, lane, seq) WHERE status = 'pending';
    `,
  },
  {
    // 6: a plan's parts (each stage's record, the plan spec) in rows of their own, written only
    // when they change: a commit writes the plan's small core and the stages it changed, not the
    // whole state. Rows stored before it keep their whole state in loom_plans.state and are split
    // on their next commit. Not additive for running replicas: a loom of version 5 cannot read a
    // plan written split (it reports the row as not a loom plan and leaves it alone).
    version: 6,
    sql: `
      CREATE TABLE loom_plan_parts (
        plan_key TEXT NOT NULL REFERENCES loom_plans (plan_key),
        name TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (plan_key, name)
      );
    `,
  },
];
