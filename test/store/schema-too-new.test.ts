import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { it } from "node:test";
import { sqliteMigrations } from "../../app/store/schema-sqlite.ts";
import { latestVersion } from "../../app/store/schema-version.ts";
import { createSqliteStore } from "../../app/store/sqlite-store.ts";
import { createAppProcess } from "../e2e/app-process.ts";

it(
  "the App refuses to start on a database a newer loom migrated: one clear line, exit code 1",
  { timeout: 60_000 },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), "loom-schema-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const sqlitePath = join(dir, "loom.sqlite");
    const newer = createSqliteStore({
      path: sqlitePath,
      migrations: [...sqliteMigrations, { version: 7, sql: "CREATE TABLE loom_future (x INTEGER)" }],
    });
    await newer.migrate();
    await newer.close();

    const app = createAppProcess({
      githubUrl: "http://127.0.0.1:9",
      webhookSecret: "schema-secret",
      appId: 1,
      botLogin: "loom[bot]",
      sqlitePath,
      workerId: "schema",
      pollMs: 200,
      reconcileMs: 60_000,
      cwd: dir,
    });
    t.after(() => app.kill());
    await assert.rejects(app.start(), /exited while starting/);
    assert.deepEqual(app.exits, [{ code: 1, signal: null }]);
    const output = app.logs.map((line) => String(line["msg"]));
    assert.ok(
      output.includes(
        `loom: the SQLite database has loom schema version 7, but this loom knows versions up to ${latestVersion(sqliteMigrations)}: a newer loom has upgraded it. ` +
          "Run that newer loom (or a later one), or restore the backup taken before the upgrade to go back.",
      ),
      output.join("\n"),
    );
    assert.ok(!output.some((line) => /^\s+at /.test(line)), `no stack trace:\n${output.join("\n")}`);
  },
);
