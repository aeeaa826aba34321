import type pg from "pg";
import type { PoolClient } from "pg";
import { formatPullKey, writeJson } from "./store-rows.ts";
import type { CommitPlanInput, CommitPlanResult, PlanKey } from "./store.ts";
import { formatPlanKey } from "./store.ts";

/** Runs `work` in `BEGIN … COMMIT` on one pooled connection, rolling back on throw. */
export async function runTransaction<T>(pool: pg.Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    client.release();
    return result;
  } catch (error) {
    // A connection whose rollback failed is broken: release it with the error so the pool drops it.
    await client.query("ROLLBACK").then(
      () => client.release(),
      (rollbackError: Error) => client.release(rollbackError),
    );
    throw error;
  }
}

/** `Store.commitPlan` for PostgreSQL; call it inside `runTransaction`. */
export async function commitPostgresPlan(
  c: PoolClient,
  key: PlanKey,
  input: CommitPlanInput,
): Promise<CommitPlanResult> {
  const planKey = formatPlanKey(key);
  const now = input.now ?? Date.now();
  const state = writeJson(input.state);
  const written =
    input.expectedVersion === 0
      ? await c.query(
          `INSERT INTO loom_plans (plan_key, pull_key, installation_id, owner, repo, pr, plan_path, state, active, version, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 1, $10, $10) ON CONFLICT (plan_key) DO NOTHING`,
          [
            planKey,
            formatPullKey(key.owner, key.repo, key.pr),
            key.installationId,
            key.owner,
            key.repo,
            key.pr,
            key.planPath,
            state,
            input.active,
            now,
          ],
        )
      : await c.query(
          `UPDATE loom_plans SET state = $1, active = $2, version = version + 1, updated_at = $3, installation_id = $4
           WHERE plan_key = $5 AND version = $6`,
          [state, input.active, now, key.installationId, planKey, input.expectedVersion],
        );
  if (written.rowCount !== 1) return { ok: false, reason: "conflict" };
  const parts = Object.entries(input.setParts ?? {});
  if (parts.length > 0)
    await c.query(
      `INSERT INTO loom_plan_parts (plan_key, name, value) SELECT $1, n, v FROM unnest($2::text[], $3::text[]) AS t (n, v)
       ON CONFLICT (plan_key, name) DO UPDATE SET value = excluded.value`,
      [planKey, parts.map(([name]) => name), parts.map(([, value]) => value)],
    );
  if ((input.dropParts ?? []).length > 0)
    await c.query("DELETE FROM loom_plan_parts WHERE plan_key = $1 AND name = ANY ($2::text[])", [
      planKey,
      input.dropParts,
    ]);
  for (const e of input.effects) {
    let at = e.availableAt ?? 0;
    if (e.replaces !== undefined) {
      // The replaced effects' earliest due time is kept (RETURNING gives it in the same statement).
      const replaced = await c.query(
        `DELETE FROM loom_outbox WHERE plan_key = $1 AND status = 'pending' AND lease_until <= $2 AND substr(key, 1, $3) = $4
         RETURNING available_at`,
        [planKey, now, e.replaces.length, e.replaces],
      );
      for (const row of replaced.rows as { available_at: string | number }[])
        at = Math.min(at, Number(row.available_at));
    }
    await c.query(
      "INSERT INTO loom_outbox (key, plan_key, effect, enqueued_at, lane, available_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (key) DO NOTHING",
      [e.key, planKey, writeJson(e.effect), now, e.lane ?? 0, at],
    );
  }
  for (const t of input.timers) {
    await c.query(
      `INSERT INTO loom_timers (plan_key, key, at) VALUES ($1, $2, $3)
       ON CONFLICT (plan_key, key) DO UPDATE SET at = excluded.at, lease_owner = NULL, lease_until = 0`,
      [planKey, t.key, t.at],
    );
  }
  for (const k of input.cancelTimers ?? []) {
    await c.query("DELETE FROM loom_timers WHERE plan_key = $1 AND key = $2", [planKey, k]);
  }
  return { ok: true, version: input.expectedVersion + 1 };
}
