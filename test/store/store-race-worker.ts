import { setTimeout as sleep } from "node:timers/promises";
import type { Store } from "../../app/store/store.ts";
import { planKey } from "./plan-key-fixture.ts";

/*
 * One participant in the store race: it commits to plans every participant shares (re-reading on
 * conflict), then claims and completes effects until every expected effect is done. Used in-process
 * (several stores) and from child processes (`store-race-child.ts`).
 */

export type RaceOptions = { worker: number; workers: number; plans: number; commitsPerPlan: number };
export type RaceClaim = { key: string; owner: string; predecessorDone: boolean; completed: boolean };
export type RaceReport = { commits: number; conflicts: number; claims: RaceClaim[] };

const maxCommitAttempts = 2000;
const maxClaimRounds = 5000;

/** Two effects per commit: one of this worker, one every worker enqueues (deduplicated). */
function effectKeys(plan: number, worker: number, i: number): string[] {
  return [`p${plan}-w${worker}-${i}`, `p${plan}-shared-${i}`];
}

/** The effect enqueued just before `key` in the same plan by the same committer, or null. */
function findPredecessor(key: string): string | null {
  const match = /^(p\d+-(?:w\d+|shared)-)(\d+)$/.exec(key);
  const i = Number(match?.[2]);
  return match === null || i === 0 ? null : `${match[1]}${i - 1}`;
}

export function listExpectedEffectKeys(o: Omit<RaceOptions, "worker">): string[] {
  const keys = new Set<string>();
  for (let p = 0; p < o.plans; p += 1) {
    for (let w = 0; w < o.workers; w += 1) {
      for (let i = 0; i < o.commitsPerPlan; i += 1) for (const k of effectKeys(p, w, i)) keys.add(k);
    }
  }
  return [...keys].sort();
}

export async function runRace(store: Store, o: RaceOptions): Promise<RaceReport> {
  const owner = `worker-${o.worker}-${process.pid}`;
  let commits = 0;
  let conflicts = 0;
  for (let i = 0; i < o.commitsPerPlan; i += 1) {
    for (let p = 0; p < o.plans; p += 1) {
      for (let attempt = 0; ; attempt += 1) {
        if (attempt === maxCommitAttempts) throw new Error(`${owner}: no commit after ${attempt} attempts`);
        const plan = await store.getPlan(planKey(p));
        const state = [...((plan?.state as string[] | undefined) ?? []), `w${o.worker}-${i}`];
        const effects = effectKeys(p, o.worker, i).map((key) => ({ key, effect: { by: owner, i } }));
        const timers = [{ key: `w${o.worker}`, at: i }];
        const result = await store.commitPlan(planKey(p), {
          expectedVersion: plan?.version ?? 0,
          state,
          active: true,
          effects,
          timers,
        });
        if (result.ok) break;
        conflicts += 1;
        await sleep(Math.random() * 2);
      }
      commits += 1;
    }
  }
  return { commits, conflicts, claims: await claimUntilAllDone(store, o, owner) };
}

async function claimUntilAllDone(store: Store, o: RaceOptions, owner: string): Promise<RaceClaim[]> {
  const expected = listExpectedEffectKeys(o);
  const claims: RaceClaim[] = [];
  for (let round = 0; round < maxClaimRounds; round += 1) {
    const batch = await store.claimEffects(owner, 2, 60_000, Date.now());
    for (const effect of batch) {
      const predecessor = findPredecessor(effect.key);
      const predecessorDone = predecessor === null || (await store.getEffect(predecessor))?.status === "done";
      await sleep(Math.random() * 2);
      const completed = await store.completeEffect(effect.key, { by: owner }, Date.now());
      claims.push({ key: effect.key, owner, predecessorDone, completed });
    }
    if (batch.length > 0) continue;
    const records = await Promise.all(expected.map((key) => store.getEffect(key)));
    if (records.every((r) => r?.status === "done")) return claims;
    await sleep(5);
  }
  throw new Error(`${owner}: effects still pending after ${maxClaimRounds} claim rounds`);
}
