import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestContext } from "node:test";
import pg from "pg";
import type { OpenStoreOptions } from "../../app/store/open-store.ts";
import { openStore } from "../../app/store/open-store.ts";
import type { Store } from "../../app/store/store.ts";

/** A fresh, empty database for one test: the options any process can open it with, and its removal. */
export type TestDatabase = { options: OpenStoreOptions; drop(): Promise<void> };
export type CreateTestDatabase = () => Promise<TestDatabase>;

/** A new SQLite file in its own temporary directory. */
export function createSqliteTestDatabase(): Promise<TestDatabase> {
  const dir = mkdtempSync(join(tmpdir(), "loom-store-"));
  return Promise.resolve({
    options: { sqlitePath: join(dir, "loom.sqlite") },
    drop: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
  });
}

export const testDatabaseUrl =
  process.env["LOOM_TEST_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
const runId = `${process.pid}_${Date.now().toString(36)}`;
let schemaCount = 0;

/** A new schema in the test PostgreSQL (created by the store's migrate), dropped afterwards. */
export function createPostgresTestDatabase(): Promise<TestDatabase> {
  schemaCount += 1;
  const schema = `loom_test_${runId}_${schemaCount}`;
  return Promise.resolve({
    options: { databaseUrl: testDatabaseUrl, schema },
    drop: () => dropSchema(schema),
  });
}

/** Removes a PostgreSQL schema and its tables (a test's or an end-to-end run's). */
export async function dropSchema(schema: string, databaseUrl = testDatabaseUrl): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/**
 * Why the PostgreSQL tests cannot run, or undefined when they can. Prints the reason. With
 * `LOOM_REQUIRE_POSTGRES=1` or `CI` an unreachable server is not a reason to skip: callers fail instead.
 */
export async function findPostgresSkipReason(): Promise<string | undefined> {
  // A loaded machine can be slow to accept a connection: try a few times before calling it unreachable.
  let lastError: unknown;
  for (let attempt = 1; attempt <= 3; attempt++) {
    lastError = await probePostgres();
    if (lastError === undefined) return undefined;
  }
  const reason = `PostgreSQL unreachable at ${testDatabaseUrl} (set LOOM_TEST_DATABASE_URL): ${String(lastError)}`;
  console.warn(`store tests: ${reason}`);
  return reason;
}

/** One connection attempt: undefined when PostgreSQL answered, else the error. */
async function probePostgres(): Promise<unknown> {
  const client = new pg.Client({ connectionString: testDatabaseUrl, connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return undefined;
  } catch (error) {
    return error;
  } finally {
    await client
      .end()
      .catch((error: unknown) => console.warn("store tests: closing the probe failed", error));
  }
}

/**
 * Whether a missing service fails the run instead of skipping its tests: `LOOM_REQUIRE_<NAME>=1`,
 * or any CI run (`CI` set, as GitHub Actions and loom's CI set it), so a green CI never hides
 * skipped PostgreSQL or Redis tests.
 */
export function isServiceRequired(
  name: "POSTGRES" | "REDIS" | "COMPOSE" | "SANDBOX",
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  return (
    env[`LOOM_REQUIRE_${name}`] === "1" ||
    (env["CI"] !== undefined && env["CI"] !== "" && env["CI"] !== "false")
  );
}

export const postgresRequired = isServiceRequired("POSTGRES");

/** Opens `count` stores (separate connections / pools) on one fresh database; all closed and dropped after `t`. */
export async function openTestStores(
  t: TestContext,
  createDatabase: CreateTestDatabase,
  count: number,
): Promise<{ database: TestDatabase; stores: Store[] }> {
  const database = await createDatabase();
  const stores: Store[] = [];
  t.after(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await database.drop();
  });
  for (let i = 0; i < count; i += 1) stores.push(await openStore(database.options));
  return { database, stores };
}
