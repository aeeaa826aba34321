import { isDeepStrictEqual } from "node:util";
import { effectLane } from "../../src/orchestrator/effect-lane.ts";
import type { Effect } from "../../src/orchestrator/effects.ts";
import type { OrchestratorEvent } from "../../src/orchestrator/events.ts";
import type { PlanState } from "../../src/orchestrator/state.ts";
import { nextWakeAt } from "../../src/orchestrator/next-wake-at.ts";
import { step } from "../../src/orchestrator/step.ts";
import { recordPlanChange } from "../metrics/record-plan-change.ts";
import { formatPlanKey } from "../store/store.ts";
import type { EffectInput, PlanKey, TimerInput } from "../store/store.ts";
import type { EngineDeps } from "./engine-deps.ts";
import { parkEvents } from "./park-events.ts";
import { readStoredPlan, splitStoredPlan } from "./stored-plan.ts";
import type { RepoSettings, StoredPlan } from "./stored-plan.ts";

/** Compare-and-swap attempts in a row (each loses only to another writer's success) before parking. */
export const MAX_CAS_ATTEMPTS = 20;
/** The plan's wake-up timer (the reducer's next due time: backoff, heartbeat check). */
export const WAKE_TIMER = "wake";

export type ApplyEventsInput = {
  key: PlanKey;
  events: OrchestratorEvent[];
  /** Fresh repository settings (from a pull request event); needed when the plan is new. */
  repo?: RepoSettings;
  /** Effects the app decided itself (replies to refused commands), enqueued with the commit. */
  effects?: Effect[];
  /**
   * After `MAX_CAS_ATTEMPTS` lost compare-and-swaps: park the events in the inbox (default), or
   * report the conflict (the inbox applying parked events: it retries them itself).
   */
  onConflict?: "park" | "report";
};

export type ApplyEventsResult =
  | { ok: true; plan: StoredPlan; effects: Effect[] }
  | { ok: false; reason: "no-plan" | "conflict" }
  | { ok: false; reason: "parked"; parkedId: string };

/**
 * Feeds events through the reducer and commits the new state with the effects it decided, in one
 * compare-and-swap; on a conflict (another replica or worker wrote first) it re-reads and decides
 * again from the fresh state, so no event is applied on stale state and no effect is lost. When it
 * keeps losing, the events are parked in the inbox rather than dropped: the inbox applies them
 * later, with backoff, on any replica, and gives up only visibly.
 */
export async function applyEvents(deps: EngineDeps, input: ApplyEventsInput): Promise<ApplyEventsResult> {
  const planKey = formatPlanKey(input.key);
  for (let attempt = 1; attempt <= MAX_CAS_ATTEMPTS; attempt++) {
    const record = await deps.store.getPlan(input.key);
    const current = record === null ? null : readStoredPlan(record);
    const repo = input.repo ?? current?.repo;
    if (repo === undefined) return { ok: false, reason: "no-plan" };
    let state: PlanState | null = current?.state ?? null;
    const effects: Effect[] = [...(input.effects ?? [])];
    for (const event of input.events) {
      if (state === null && event.type !== "plan.opened") return { ok: false, reason: "no-plan" };
      const result = step(state, event);
      state = result.state;
      effects.push(...result.effects);
    }
    if (state === null) return { ok: false, reason: "no-plan" };
    const stored: StoredPlan = { format: 1, state, repo };
    if (record !== null && effects.length === 0 && isDeepStrictEqual(stored, current)) {
      return { ok: true, plan: stored, effects };
    }
    const version = (record?.version ?? 0) + 1;
    const now = deps.now();
    const { outbox, timers } = splitEffects(planKey, version, effects, now);
    const wake = nextWakeAt(state);
    // Only the core and the parts that changed are written (issue 13: incremental state).
    const { core, setParts, dropParts } = splitStoredPlan(stored, record);
    const committed = await deps.store.commitPlan(input.key, {
      expectedVersion: record?.version ?? 0,
      state: core,
      setParts,
      dropParts,
      active: !state.closed,
      effects: outbox,
      timers: wake === null ? timers : [...timers, { key: WAKE_TIMER, at: wake }],
      cancelTimers: wake === null ? [WAKE_TIMER] : [],
      now,
    });
    if (committed.ok) {
      if (deps.metrics)
        recordPlanChange(deps.metrics, current?.state ?? null, state, record?.createdAt ?? now, now);
      return { ok: true, plan: stored, effects };
    }
    deps.log.debug({ planKey, attempt }, "plan changed meanwhile; deciding again");
  }
  const reason = `the plan changed ${MAX_CAS_ATTEMPTS} times in a row while these events were applied`;
  if (input.onConflict === "report" || (input.events.length === 0 && (input.effects ?? []).length === 0)) {
    deps.log.warn({ planKey }, reason);
    return { ok: false, reason: "conflict" };
  }
  const parkedId = await parkEvents(
    deps,
    {
      key: input.key,
      events: input.events,
      ...(input.repo === undefined ? {} : { repo: input.repo }),
      ...(input.effects === undefined ? {} : { effects: input.effects }),
    },
    reason,
  );
  return { ok: false, reason: "parked", parkedId };
}

/**
 * How long a check run waits before following the head to a new commit (a `follow` sync): merges
 * landing together move it once (two writes each time: the old run completed, a new one created).
 * A stage's waits in its lane, so the plan's check run and the status comment, which link it, are
 * written after it; the plan's makes the status comment behind it wait too (one write for the
 * burst). Dispatches and merges (lane 0) never wait. A stage's sync for anything else of the stage
 * is written at once and takes the waiting one's place.
 */
export const FOLLOW_DELAY_MS = 2_000;

/** Effects that bring something on GitHub up to date with the state: running one twice is harmless. */
const SYNC_EFFECTS: ReadonlySet<Effect["type"]> = new Set(["syncCheckRun", "syncStatusComment"]);

/**
 * `setTimer` effects become the plan's timers; every other effect goes to the outbox. Outbox keys
 * are the effect keys prefixed with the plan identity (the reducer's keys start with the plan blob
 * SHA, which two pull requests carrying the same plan file share). The outbox ignores a key it
 * has seen, which is what makes dispatches and merges happen once; sync effects reuse one key per
 * check run, so they also carry the version that decided them, or a later sync would be dropped,
 * and each replaces an older one of its check run or comment still waiting in the outbox (keeping
 * its due time: a `follow` sync waits `FOLLOW_DELAY_MS`, replaced ones no longer than the first).
 */
function splitEffects(
  planKey: string,
  version: number,
  effects: Effect[],
  now: number,
): { outbox: EffectInput[]; timers: TimerInput[] } {
  const outbox: EffectInput[] = [];
  const timers: TimerInput[] = [];
  for (const effect of effects) {
    if (effect.type === "setTimer") timers.push({ key: effect.key, at: effect.at });
    else if (SYNC_EFFECTS.has(effect.type)) {
      // The newest sync of a check run or comment replaces one still waiting: one write, not two.
      const replaces = `${planKey}|${effect.key}|v`;
      const follow = effect.type === "syncCheckRun" && effect.follow === true;
      outbox.push({
        key: `${replaces}${version}`,
        effect,
        lane: effectLane(effect),
        replaces,
        ...(follow ? { availableAt: now + FOLLOW_DELAY_MS } : {}),
      });
    } else outbox.push({ key: `${planKey}|${effect.key}`, effect, lane: effectLane(effect) });
  }
  return { outbox, timers };
}
