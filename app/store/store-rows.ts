import type {
  Backlog,
  DeliveryRecord,
  DueTimer,
  EffectRecord,
  InboxDelivery,
  OutboxEffect,
  PlanKey,
  PlanRecord,
} from "./store.ts";
import { effectStatuses } from "./store.ts";

/**
 * Turns database rows into store records, for both adapters. The queries alias their columns to the
 * names read here. SQLite gives integers as numbers, `pg` gives BIGINT as strings: both are accepted.
 */
export type Row = Record<string, unknown>;

/** Thrown when a row does not have the shape the schema promises (a bug or a foreign database). */
export class StoreRowError extends Error {
  override name = "StoreRowError";
}

function readNumber(row: Row, column: string): number {
  const value = row[column];
  const n = typeof value === "string" || typeof value === "bigint" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isSafeInteger(n)) {
    throw new StoreRowError(`column ${column}: expected an integer, got ${String(value)}`);
  }
  return n;
}

function readNullableNumber(row: Row, column: string): number | null {
  return row[column] === null || row[column] === undefined ? null : readNumber(row, column);
}

function readString(row: Row, column: string): string {
  const value = row[column];
  if (typeof value !== "string") throw new StoreRowError(`column ${column}: expected text`);
  return value;
}

function readNullableString(row: Row, column: string): string | null {
  return row[column] === null || row[column] === undefined ? null : readString(row, column);
}

function readJson(row: Row, column: string): unknown {
  const text = readNullableString(row, column);
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new StoreRowError(`column ${column}: invalid JSON`, { cause: error });
  }
}

/** Reads the plan key columns `installation_id, owner, repo, pr, plan_path`. */
export function readPlanKey(row: Row): PlanKey {
  return {
    installationId: readNumber(row, "installation_id"),
    owner: readString(row, "owner"),
    repo: readString(row, "repo"),
    pr: readNumber(row, "pr"),
    planPath: readString(row, "plan_path"),
  };
}

/**
 * The `parts` column of a plan query: a JSON object of part name → JSON text, aggregated in the
 * same statement as the plan row (`PLAN_PARTS_SQL`), so both come from one snapshot.
 */
function readParts(row: Row): Map<string, string> {
  const parts = new Map<string, string>();
  const value = readJson(row, "parts");
  if (value === null) return parts;
  if (typeof value !== "object" || Array.isArray(value))
    throw new StoreRowError("column parts: expected an object");
  for (const [name, text] of Object.entries(value)) {
    if (typeof text !== "string") throw new StoreRowError(`column parts: part ${name} is not text`);
    parts.set(name, text);
  }
  return parts;
}

export function readPlanRecord(row: Row): PlanRecord {
  return {
    key: readPlanKey(row),
    planKey: readString(row, "plan_key"),
    state: readJson(row, "state"),
    parts: readParts(row),
    active: row["active"] === true || row["active"] === 1,
    version: readNumber(row, "version"),
    createdAt: readNumber(row, "created_at"),
    updatedAt: readNumber(row, "updated_at"),
  };
}

export function readOutboxEffect(row: Row): OutboxEffect {
  return {
    key: readString(row, "key"),
    planKey: readPlanKey(row),
    effect: readJson(row, "effect"),
    attempts: readNumber(row, "attempts"),
    lastError: readNullableString(row, "last_error"),
    leaseUntil: readNumber(row, "lease_until"),
    enqueuedAt: readNumber(row, "enqueued_at"),
  };
}

export function readEffectRecord(row: Row): EffectRecord {
  const status = effectStatuses.find((s) => s === row["status"]);
  if (status === undefined) throw new StoreRowError(`column status: unknown ${String(row["status"])}`);
  return {
    key: readString(row, "key"),
    planKey: readPlanKey(row),
    effect: readJson(row, "effect"),
    status,
    attempts: readNumber(row, "attempts"),
    result: readJson(row, "result"),
    lastError: readNullableString(row, "last_error"),
    enqueuedAt: readNumber(row, "enqueued_at"),
    completedAt: readNullableNumber(row, "completed_at"),
  };
}

export function readDelivery(row: Row): InboxDelivery {
  return {
    id: readString(row, "id"),
    name: readString(row, "name"),
    payload: readJson(row, "payload"),
    receivedAt: readNumber(row, "received_at"),
    attempts: readNumber(row, "attempts"),
    leaseUntil: readNumber(row, "lease_until"),
    lastError: readNullableString(row, "last_error"),
  };
}

export function readDeliveryRecord(row: Row): DeliveryRecord {
  return {
    id: readString(row, "id"),
    name: readString(row, "name"),
    receivedAt: readNumber(row, "received_at"),
    attempts: readNumber(row, "attempts"),
    lastError: readNullableString(row, "last_error"),
    availableAt: readNumber(row, "available_at"),
    completedAt: readNullableNumber(row, "completed_at"),
    error: readNullableString(row, "error"),
  };
}

/**
 * Claimed delivery rows (`seq`, `installation_id`) in the order they are served: installations in
 * turn, each installation's rows oldest first (the order of `selectDueDeliveryTurns`).
 */
export function orderInTurns(rows: Row[]): Row[] {
  const seen = new Map<number | null, number>();
  const turned = [...rows]
    .sort((a, b) => readNumber(a, "seq") - readNumber(b, "seq"))
    .map((row) => {
      const installation = readNullableNumber(row, "installation_id");
      const turn = (seen.get(installation) ?? 0) + 1;
      seen.set(installation, turn);
      return { row, turn, seq: readNumber(row, "seq") };
    });
  return turned.sort((a, b) => a.turn - b.turn || a.seq - b.seq).map((entry) => entry.row);
}

/** The counts row of `countBacklog` (`pg` gives COUNT as a string). */
export function readBacklog(row: Row): Backlog {
  return {
    deliveries: readNumber(row, "deliveries"),
    effects: readNumber(row, "effects"),
    timers: readNumber(row, "timers"),
  };
}

export function readDueTimer(row: Row): DueTimer {
  return { planKey: readPlanKey(row), key: readString(row, "key"), at: readNumber(row, "at") };
}

/** The key of one pull request's plans, matched case-insensitively like `formatPlanKey`. */
export function formatPullKey(owner: string, repo: string, pr: number): string {
  return `${owner.toLowerCase()}/${repo.toLowerCase()}#${pr}`;
}

/** JSON text for a column; `undefined` (not JSON) is stored as null. */
export function writeJson(value: unknown): string {
  return JSON.stringify(value) ?? "null";
}
