import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { it } from "node:test";
import { defaultSqlitePath, openStore } from "../../app/store/open-store.ts";
import { planKey } from "./plan-key-fixture.ts";
import { createPostgresTestDatabase, findPostgresSkipReason, postgresRequired } from "./test-database.ts";

it("opens a migrated SQLite file, creating its directory, when no DATABASE_URL is set", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "loom-open-store-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, "nested", "loom.sqlite");
  for (const databaseUrl of [undefined, ""]) {
    const store = await openStore({
      sqlitePath: path,
      ...(databaseUrl === undefined ? {} : { databaseUrl }),
    });
    assert.equal(store.kind, "sqlite");
    assert.equal(await store.getPlan(planKey(1)), null);
    await store.close();
  }
  assert.equal(existsSync(path), true);
});

it("refuses to start when the PostgreSQL in DATABASE_URL cannot be reached", async () => {
  await assert.rejects(openStore({ databaseUrl: "postgres://postgres@127.0.0.1:1/none" }), {
    message: "could not migrate the postgres store",
  });
});

const skipReason = await findPostgresSkipReason();
it(
  "opens a migrated PostgreSQL store when DATABASE_URL is set",
  { skip: postgresRequired ? false : (skipReason ?? false) },
  async (t) => {
    const database = await createPostgresTestDatabase();
    const store = await openStore(database.options);
    t.after(async () => {
      await store.close();
      await database.drop();
    });
    assert.equal(store.kind, "postgres");
    assert.equal(await store.getPlan(planKey(1)), null);
  },
);

it("has one SQLite default path, shared by the App's settings and openStore", async () => {
  const { readAppConfig } = await import("../../app/config/app-config.ts");
  assert.equal(defaultSqlitePath, "data/loom.sqlite");
  assert.equal(readAppConfig({}).sqlitePath, defaultSqlitePath);
});
