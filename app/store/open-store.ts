import { defaultSqlitePath } from "./default-sqlite-path.ts";
import { createPostgresStore } from "./postgres-store.ts";
import { SchemaTooNewError } from "./schema-version.ts";
import { createSqliteStore } from "./sqlite-store.ts";
import type { SqliteWriteGate } from "./sqlite-write-gate.ts";
import type { Store } from "./store.ts";

export type OpenStoreOptions = {
  /** `DATABASE_URL`: when set (non-empty), PostgreSQL is used. */
  databaseUrl?: string;
  /** The SQLite file otherwise (default `defaultSqlitePath`). */
  sqlitePath?: string;
  /** PostgreSQL only: schema for loom's tables (default: the connection's search_path). */
  schema?: string;
  /** Run `migrate()` before returning (default true). */
  migrate?: boolean;
  /** SQLite only: shared with another connection of this process (`SqliteWriteGate`). */
  writeGate?: SqliteWriteGate;
};

export { defaultSqlitePath };

/**
 * Opens the store the settings ask for (PostgreSQL with a URL, else the SQLite file), migrated.
 * Rejects with `SchemaTooNewError` when a newer loom has upgraded the database.
 */
export async function openStore(options: OpenStoreOptions = {}): Promise<Store> {
  const store =
    options.databaseUrl !== undefined && options.databaseUrl !== ""
      ? createPostgresStore({
          connectionString: options.databaseUrl,
          ...(options.schema === undefined ? {} : { schema: options.schema }),
        })
      : createSqliteStore({
          path: options.sqlitePath ?? defaultSqlitePath,
          ...(options.writeGate === undefined ? {} : { writeGate: options.writeGate }),
        });
  if (options.migrate ?? true) {
    try {
      await store.migrate();
    } catch (error) {
      await store.close();
      // A schema newer than the code is the operator's to resolve: its message says how.
      if (error instanceof SchemaTooNewError) throw error;
      throw new Error(`could not migrate the ${store.kind} store`, { cause: error });
    }
  }
  return store;
}
