import type { StoreKind } from "./store.ts";

/** One schema step: applied once, in one transaction, recorded in `loom_schema_migrations`. */
export type Migration = { version: number; sql: string };

/** The schema version a set of migrations brings a database to. */
export function latestVersion(migrations: readonly Migration[]): number {
  return migrations.reduce((max, m) => Math.max(max, m.version), 0);
}

/**
 * The database was migrated by a newer loom than this one: its schema has versions this code does
 * not know, so reading or writing it could lose data. Refused at start, with what to do.
 */
export class SchemaTooNewError extends Error {
  override name = "SchemaTooNewError";
  readonly kind: StoreKind;
  /** The newest version recorded in the database. */
  readonly found: number;
  /** The newest version this code knows. */
  readonly supported: number;
  constructor(kind: StoreKind, found: number, supported: number) {
    super(
      `the ${kind === "sqlite" ? "SQLite" : "PostgreSQL"} database has loom schema version ${found}, ` +
        `but this loom knows versions up to ${supported}: a newer loom has upgraded it. ` +
        `Run that newer loom (or a later one), or restore the backup taken before the upgrade to go back.`,
    );
    this.kind = kind;
    this.found = found;
    this.supported = supported;
  }
}

/**
 * Which migrations to apply given the versions a database has recorded, in order; throws
 * `SchemaTooNewError` when the database has a version above every known one.
 */
export function planMigrations(
  kind: StoreKind,
  applied: readonly number[],
  migrations: readonly Migration[],
): Migration[] {
  const supported = latestVersion(migrations);
  const found = applied.reduce((max, v) => Math.max(max, v), 0);
  if (found > supported) throw new SchemaTooNewError(kind, found, supported);
  const done = new Set(applied);
  return [...migrations].sort((a, b) => a.version - b.version).filter((m) => !done.has(m.version));
}
