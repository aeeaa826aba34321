/*
 * Inbox statements both adapters share; `p(n)` writes the dialect's n-th placeholder (`?n` for
 * SQLite, `$n` for PostgreSQL).
 */

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

export const sqlitePlaceholder: Placeholder = (n) => `?${n}`;
export const postgresPlaceholder: Placeholder = (n) => `$${n}`;
