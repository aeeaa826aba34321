import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { TestContext } from "node:test";
import { openStore } from "../../app/store/open-store.ts";
import { createPostgresStore } from "../../app/store/postgres-store.ts";
import { postgresMigrations } from "../../app/store/schema-postgres.ts";
import { sqliteMigrations } from "../../app/store/schema-sqlite.ts";
import type { Migration } from "../../app/store/schema-version.ts";
import { latestVersion, SchemaTooNewError } from "../../app/store/schema-version.ts";
import { createSqliteStore } from "../../app/store/sqlite-store.ts";
import type { Store } from "../../app/store/store.ts";
import { planKey } from "./plan-key-fixture.ts";
import type { CreateTestDatabase, TestDatabase } from "./test-database.ts";

/** A plan row as loom's first schema wrote it (no `created_at`); `1 = 1` is true in both dialects. */
const SEED_V1_PLAN = `
  INSERT INTO loom_plans (plan_key, pull_key, installation_id, owner, repo, pr, plan_path, state, active, version, updated_at)
  VALUES ('octo/hello#12:doc/plans/PLAN-1.md', 'octo/hello#12', 1, 'octo', 'hello', 12, 'doc/plans/PLAN-1.md', '"v1"', 1 = 1, 3, 777);
  INSERT INTO loom_deliveries (id, name, payload, received_at, attempts) VALUES ('waiting', 'issue_comment', '"p"', 5, 1);`;

const SEED_V4_OUTBOX = `
  INSERT INTO loom_outbox (key, plan_key, effect, enqueued_at)
  VALUES ('sync', 'octo/hello#12:doc/plans/PLAN-1.md', '{"type":"syncStatusComment","key":"status"}', 5);
  INSERT INTO loom_outbox (key, plan_key, effect, enqueued_at)
  VALUES ('dispatch', 'octo/hello#12:doc/plans/PLAN-1.md', '{"type":"dispatchRun","key":"b:1"}', 6);`;

/**
 * Schema versions, on both adapters: the version is recorded, an older schema is migrated forward
 * in one transaction, a newer one is refused. Part of `describeStoreContract`.
 */
export function describeSchemaContract(createDatabase: CreateTestDatabase): void {
  const fresh = async (t: TestContext): Promise<{ database: TestDatabase; open: OpenWith }> => {
    const database = await createDatabase();
    const opened: Store[] = [];
    t.after(async () => {
      await Promise.all(opened.map((s) => s.close()));
      await database.drop();
    });
    return {
      database,
      open: (migrations) => {
        const store = openWith(database, migrations);
        opened.push(store);
        return store;
      },
    };
  };

  describe("schema versions", () => {
    it("records the schema version it migrated to, and 0 before", async (t) => {
      const { database, open } = await fresh(t);
      const store = open();
      assert.equal(await store.schemaVersion(), 0);
      await store.migrate();
      const latest = latestVersion(store.kind === "sqlite" ? sqliteMigrations : postgresMigrations);
      assert.equal(latest, 6);
      assert.equal(await store.schemaVersion(), latest);
      await store.migrate();
      assert.equal(await store.schemaVersion(), latest, "migrating again changes nothing");
      const reopened = await openStore(database.options);
      await reopened.close();
    });

    it("migrates a version 1 database forward, keeping its plans and its waiting deliveries", async (t) => {
      const { open } = await fresh(t);
      const old = open(
        (kindOf(open) === "sqlite" ? sqliteMigrations : postgresMigrations)
          .filter((m) => m.version === 1)
          .map((m) => ({ version: 1, sql: m.sql + SEED_V1_PLAN })),
      );
      await old.migrate();
      assert.equal(await old.schemaVersion(), 1);
      await old.close();

      const store = open();
      await store.migrate();
      assert.equal(
        await store.schemaVersion(),
        latestVersion(store.kind === "sqlite" ? sqliteMigrations : postgresMigrations),
      );
      // A delivery recorded before deliveries could be parked is due at once, with no error yet.
      assert.deepEqual(
        (await store.claimDeliveries("w", 10, 1000, 0)).map((d) => [d.id, d.attempts, d.lastError]),
        [["waiting", 2, null]],
      );
      const plan = await store.getPlan(planKey(1));
      assert.deepEqual(
        plan && {
          state: plan.state,
          version: plan.version,
          createdAt: plan.createdAt,
          updatedAt: plan.updatedAt,
        },
        { state: "v1", version: 3, createdAt: 777, updatedAt: 777 },
        "a plan from before the column gets its last update as its opening time",
      );
      assert.deepEqual(
        await store.commitPlan(planKey(1), {
          expectedVersion: 3,
          state: "v2",
          active: true,
          effects: [],
          timers: [],
        }),
        { ok: true, version: 4 },
      );
    });

    it("migrates a version 4 outbox to lanes: its pending dispatch runs before its older status-comment sync", async (t) => {
      const { open } = await fresh(t);
      const known = kindOf(open) === "sqlite" ? sqliteMigrations : postgresMigrations;
      // Rows as a version 4 loom wrote them: no lane.
      const old = open(
        known
          .filter((m) => m.version <= 4)
          .map((m) => (m.version === 4 ? { ...m, sql: m.sql + SEED_V1_PLAN + SEED_V4_OUTBOX } : m)),
      );
      await old.migrate();
      assert.equal(await old.schemaVersion(), 4);
      await old.close();

      const store = open();
      await store.migrate();
      assert.deepEqual(
        (await store.claimEffects("w", 1, 1000, 0)).map((e) => e.key),
        ["dispatch"],
      );
    });

    it("refuses a database whose schema is newer than the code, changing nothing", async (t) => {
      const { database, open } = await fresh(t);
      const known = kindOf(open) === "sqlite" ? sqliteMigrations : postgresMigrations;
      const latest = latestVersion(known);
      const future = latest + 1;
      const newer = open([...known, { version: future, sql: "CREATE TABLE loom_future (x INTEGER)" }]);
      await newer.migrate();
      assert.equal(await newer.schemaVersion(), future);

      const current = open();
      await assert.rejects(current.migrate(), (error: unknown) => {
        assert.ok(error instanceof SchemaTooNewError);
        assert.deepEqual([error.found, error.supported], [future, latest]);
        assert.match(error.message, new RegExp(`schema version ${future}`));
        assert.match(error.message, new RegExp(`up to ${latest}`));
        assert.match(error.message, /newer loom/);
        assert.match(error.message, /restore the backup/);
        return true;
      });
      await assert.rejects(openStore(database.options), SchemaTooNewError, "openStore passes the refusal on");
      assert.equal(await newer.schemaVersion(), future);
    });

    it("applies a failing migration not at all: the schema stays at its old version", async (t) => {
      const { open } = await fresh(t);
      const known = kindOf(open) === "sqlite" ? sqliteMigrations : postgresMigrations;
      const broken: Migration[] = [
        ...known,
        {
          version: latestVersion(known) + 1,
          sql: "ALTER TABLE loom_plans ADD COLUMN half_done INTEGER; SELECT * FROM loom_missing;",
        },
      ];
      const store = open();
      await store.migrate();
      for (let attempt = 1; attempt <= 2; attempt++) {
        // The second attempt fails the same way: the first one's ALTER TABLE was rolled back.
        await assert.rejects(open(broken).migrate(), /loom_missing/);
      }
      assert.equal(await store.schemaVersion(), latestVersion(known));
    });
  });
}

type OpenWith = (migrations?: readonly Migration[]) => Store;

/** A store on the test database with the given migrations (default loom's), not migrated yet. */
function openWith(database: TestDatabase, migrations?: readonly Migration[]): Store {
  const { databaseUrl, schema, sqlitePath } = database.options;
  const extra = migrations === undefined ? {} : { migrations };
  if (databaseUrl !== undefined && databaseUrl !== "")
    return createPostgresStore({ connectionString: databaseUrl, ...(schema ? { schema } : {}), ...extra });
  if (sqlitePath === undefined) throw new Error("the test database has neither a URL nor a file");
  return createSqliteStore({ path: sqlitePath, ...extra });
}

function kindOf(open: OpenWith): Store["kind"] {
  // Opening is cheap and lazy for both adapters; the store is closed with the test.
  return open().kind;
}
