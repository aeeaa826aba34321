/*
 * Inbox statements both adapters share; `p(n)` writes the dialect's n-th placeholder (`?n` for
 * SQLite, `$n` for PostgreSQL).
 */

import { writeJson } from "./store-rows.ts";
import type { DeliveryInput } from "./store.ts";

type Placeholder = (n: number) => string;

/**
 * Every unprocessed, free and due delivery (`p(1)` = now) with its `turn`: 1 for the oldest of its
 * installation, 2 for the next, … Ordered by (turn, seq), installations take turns: a backlog of one
 * installation never holds another's oldest delivery back. Rows without an installation (stored
 * before schema version 4) share one turn.
 */
export function selectDueDeliveryTurns(p: Placeholder): string {
  return `SELECT seq, row_number() OVER (PARTITION BY installation_id ORDER BY seq) AS turn
          FROM loom_deliveries
          WHERE completed_at IS NULL AND lease_until <= ${p(1)} AND available_at <= ${p(1)}`;
}

/** A row when a delivery with `p(1)`'s coalescing key was recorded after it and was not given up. */
export function selectNewerDelivery(p: Placeholder): string {
  return `SELECT 1 FROM loom_deliveries d
          JOIN loom_deliveries n ON n.coalesce_key = d.coalesce_key AND n.seq > d.seq
          WHERE d.id = ${p(1)} AND (n.completed_at IS NULL OR n.error IS NULL)
          LIMIT 1`;
}

/** Records a delivery (`deliveryValues` in order); a recorded id is left as it is. */
export function insertDelivery(p: Placeholder): string {
  return `INSERT INTO loom_deliveries (id, name, payload, received_at, available_at, last_error, installation_id, coalesce_key)
          VALUES (${[1, 2, 3, 4, 5, 6, 7, 8].map(p).join(", ")}) ON CONFLICT (id) DO NOTHING`;
}

/** The values `insertDelivery` takes, in order. */
export function deliveryValues(delivery: DeliveryInput): (string | number | null)[] {
  return [
    delivery.id,
    delivery.name,
    writeJson(delivery.payload),
    delivery.receivedAt,
    delivery.availableAt ?? 0,
    delivery.lastError ?? null,
    delivery.installationId ?? null,
    delivery.coalesceKey ?? null,
  ];
}

export const sqlitePlaceholder: Placeholder = (n) => `?${n}`;
export const postgresPlaceholder: Placeholder = (n) => `$${n}`;
