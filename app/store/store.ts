/**
 * The app's durable state (DESIGN §7, §9): plans with compare-and-swap versions, a transactional
 * outbox of side effects, an inbox of webhook deliveries and due timers.
 *
 * Two adapters implement it: SQLite through `node:sqlite` (one file, safe to share between processes)
 * and PostgreSQL through `pg` (several replicas). Choose one with `openStore` (`open-store.ts`).
 *
 * Times are epoch milliseconds passed in by the caller (`now`), never read inside the store, except
 * where a parameter says otherwise. JSON values (`state`, `effect`, `result`, `payload`) are stored as
 * JSON and come back as parsed JSON typed `unknown`: the app validates them with zod.
 *
 * Several replicas never do the same side effect twice because:
 * - a plan is written only through `commitPlan`, a compare-and-swap on its `version` that enqueues
 *   the effects the new state decided in the SAME transaction (no state without its effects, no
 *   effects without their state);
 * - effect keys are globally unique and deterministic (plan blob SHA, stage, attempt): enqueueing a key
 *   that already exists is silently ignored, whatever its status;
 * - a claimed effect, delivery or timer is leased to one owner until the lease expires.
 */

/** Which plan: one plan file in one pull request. */
export type PlanKey = {
  /** The GitHub App installation that may act on the repository (updated on every commit). */
  installationId: number;
  owner: string;
  repo: string;
  pr: number;
  /** Repository path of the plan file, e.g. `doc/plans/PLAN-auth.md`. */
  planPath: string;
};

/**
 * The string identity of a plan: `owner/repo#pr:planPath`, owner and repo lower-cased (GitHub names
 * are case-insensitive), planPath kept as is. The installation id is NOT part of the identity: a
 * re-installed app finds its plans again, and the stored installation id follows the latest commit.
 */
export function formatPlanKey(key: Pick<PlanKey, "owner" | "repo" | "pr" | "planPath">): string {
  return `${key.owner.toLowerCase()}/${key.repo.toLowerCase()}#${key.pr}:${key.planPath}`;
}

/** One stored plan. */
export type PlanRecord = {
  key: PlanKey;
  /** `formatPlanKey(key)`. */
  planKey: string;
  /** The orchestrator state as stored JSON (parse it with the core's zod schema). */
  state: unknown;
  /**
   * The plan's parts stored in rows of their own, by name: JSON text as `commitPlan` was given it.
   * Parts are written only when they change (a stage's record), so a commit writes what changed
   * rather than the whole state; what they mean is the caller's (`app/engine/stored-plan.ts`).
   */
  parts: ReadonlyMap<string, string>;
  /** False once the plan needs no more work (merged, closed, finished): left out of `listActivePlans`. */
  active: boolean;
  /** Starts at 1 on insert and grows by 1 on every successful `commitPlan`. */
  version: number;
  /** `now` of the commit that inserted it (the plan was opened). */
  createdAt: number;
  /** `now` of the last commit. */
  updatedAt: number;
};

/** `claimEffects`'s default `maxLane`: every lane (the largest value a lane column holds). */
export const EVERY_LANE = 2_147_483_647;

/**
 * A side effect to enqueue; `key` is globally unique and deterministic. `lane` (default 0): a plan's
 * pending effects in a lower lane are claimed before those in a higher one.
 */
/**
 * `replaces`: a key prefix. Pending effects of the plan whose key starts with it, and that no worker
 * holds, are dropped before this one is enqueued: a newer sync of the same check run or comment
 * replaces an older one still waiting (it reads the state when it runs, so the older one would only
 * write a state already gone), and the newer one takes its place at the end of the plan's queue.
 */
/**
 * `availableAt`: not claimed before this time (default: at once). An effect that replaces waiting
 * ones keeps the earliest due time among them and itself, so a burst of replacements is written
 * once, no later than the first of them asked.
 */
export type EffectInput = {
  key: string;
  effect: unknown;
  lane?: number;
  replaces?: string;
  availableAt?: number;
};

/** A timer of a plan: fires (becomes claimable) at `at`. Identity is (plan, key). */
export type TimerInput = { at: number; key: string };

export type CommitPlanInput = {
  /** The version read by `getPlan`; 0 = the plan must not exist yet (insert). */
  expectedVersion: number;
  state: unknown;
  active: boolean;
  /** Enqueued in this order; keys already in the outbox (any status) are ignored. */
  effects: readonly EffectInput[];
  /** Upserted: a timer with the same (plan, key) gets the new `at` and loses any lease. */
  timers: readonly TimerInput[];
  /** Timer keys of this plan to delete in the same transaction. */
  cancelTimers?: readonly string[];
  /** Recorded as `updatedAt` / enqueue time; defaults to `Date.now()`. */
  now?: number;
  /** Parts to write (name → JSON text), in the same transaction; a part not named keeps its value. */
  setParts?: Readonly<Record<string, string>>;
  /** Parts to delete, in the same transaction. */
  dropParts?: readonly string[];
};

export type CommitPlanResult = { ok: true; version: number } | { ok: false; reason: "conflict" };

/** A claimed effect, leased to the claimer until `leaseUntil`. */
export type OutboxEffect = {
  key: string;
  planKey: PlanKey;
  effect: unknown;
  /** Claims so far, this one included (1 on the first claim). */
  attempts: number;
  /** The error of the previous failed attempt, if any. */
  lastError: string | null;
  leaseUntil: number;
  /** When the commit that decided it enqueued it (`now` of `commitPlan`). */
  enqueuedAt: number;
};

export const effectStatuses = ["pending", "done", "dead"] as const;
/** pending: waiting or in flight; done: `completeEffect`; dead: `failEffect` with `retryAt` null. */
export type EffectStatus = (typeof effectStatuses)[number];

/** What `getEffect` returns: the effect and, once done, its recorded result. */
export type EffectRecord = {
  key: string;
  planKey: PlanKey;
  effect: unknown;
  status: EffectStatus;
  attempts: number;
  /** The JSON result given to `completeEffect` (null until done). */
  result: unknown;
  lastError: string | null;
  enqueuedAt: number;
  completedAt: number | null;
};

/**
 * A webhook delivery as received; `id` is the `X-GitHub-Delivery` header. loom also parks its own
 * work here (events whose commit kept losing the compare-and-swap): those are first claimable at
 * `availableAt` (default: at once) and carry the error that parked them.
 */
export type DeliveryInput = {
  id: string;
  name: string;
  payload: unknown;
  receivedAt: number;
  availableAt?: number;
  lastError?: string;
  /**
   * The installation it belongs to: claims serve installations in turn (null or left out: the
   * deliveries without one share a turn).
   */
  installationId?: number | null;
  /** See `hasNewerDelivery` (null or left out: never superseded). */
  coalesceKey?: string | null;
};

/** A claimed delivery, leased to the claimer until `leaseUntil`. */
export type InboxDelivery = Omit<
  DeliveryInput,
  "availableAt" | "lastError" | "installationId" | "coalesceKey"
> & {
  /** Claims so far, this one included (1 on the first claim). */
  attempts: number;
  leaseUntil: number;
  /** The error of the previous failed attempt (or the one that parked it), if any. */
  lastError: string | null;
};

/** What `getDelivery` returns: where a delivery stands (waiting, parked, processed or dead-lettered). */
export type DeliveryRecord = {
  id: string;
  name: string;
  receivedAt: number;
  attempts: number;
  /** The error of the last failed attempt (null while none failed). */
  lastError: string | null;
  /** When it may be claimed next (0: at once). */
  availableAt: number;
  /** When it was processed or given up (null while it waits). */
  completedAt: number | null;
  /** Why it was given up (dead-lettered); null when processed or still waiting. */
  error: string | null;
};

/** A claimed due timer. Pass it back to `deleteTimer` once handled. */
export type DueTimer = { planKey: PlanKey; key: string; at: number };

/** Work waiting in the store: unprocessed deliveries, pending effects, timers (due or not). */
export type Backlog = { deliveries: number; effects: number; timers: number };

export const storeKinds = ["sqlite", "postgres"] as const;
export type StoreKind = (typeof storeKinds)[number];

export interface Store {
  readonly kind: StoreKind;

  /**
   * Creates or upgrades the schema (versioned, idempotent, safe when replicas run it at once), all
   * missing steps in one transaction. Throws `SchemaTooNewError` (and changes nothing) when the
   * database has a schema version newer than this code knows.
   */
  migrate(): Promise<void>;
  /** The newest schema version recorded in the database (0 before the first `migrate`). */
  schemaVersion(): Promise<number>;
  /** Counts the work waiting (for the inbox and outbox depth gauges). */
  countBacklog(): Promise<Backlog>;
  close(): Promise<void>;
  /** Resolves when the database answers a trivial query; rejects when it cannot be reached. */
  ping(): Promise<void>;

  // ---- plans ----
  getPlan(key: PlanKey): Promise<PlanRecord | null>;
  /** Every plan with `active` true, oldest update first (for the periodic reconcile). */
  listActivePlans(): Promise<PlanRecord[]>;
  /** Every plan (active or not) of one pull request, by plan path. */
  listPlansForPull(owner: string, repo: string, pr: number): Promise<PlanRecord[]>;
  /** Every plan of one repository (or of all, without `repo`), finished ones too, oldest update first: for exports. */
  listPlans(filter?: { owner: string; repo: string }): Promise<PlanRecord[]>;
  /**
   * Compare-and-swap in one transaction: writes state/active/version, enqueues `effects` and upserts
   * `timers`. On `{ ok: false, reason: "conflict" }` NOTHING was written or enqueued: re-read and
   * re-decide.
   */
  commitPlan(key: PlanKey, input: CommitPlanInput): Promise<CommitPlanResult>;

  // ---- outbox ----
  /**
   * Leases up to `limit` effects to `owner` for `leaseMs`, lower lanes first. Per plan, at most one
   * effect is in flight, and the claimable one is the oldest pending effect of the plan's lowest
   * pending lane; a later effect of that lane, or any effect of a higher lane, waits for it to be
   * completed (or dead). A failed effect waiting for its `retryAt` holds back its plan's later
   * effects of its lane and of higher lanes. Claims of other owners are invisible until their lease
   * expires. With `maxLane`, only effects of that lane or a lower one are claimed.
   */
  claimEffects(
    owner: string,
    limit: number,
    leaseMs: number,
    now: number,
    maxLane?: number,
  ): Promise<OutboxEffect[]>;
  /** Records the result; false if the effect is unknown or no longer pending. */
  completeEffect(key: string, result: unknown, now: number): Promise<boolean>;
  /**
   * Releases the lease and records `error`. `retryAt` = epoch ms when it may be claimed again;
   * null = give up (status `dead`, which lets the plan's next effect run). False if unknown or not
   * pending.
   */
  failEffect(key: string, error: string, retryAt: number | null): Promise<boolean>;
  /** The effect and its recorded result (look before create), or null when never enqueued. */
  getEffect(key: string): Promise<EffectRecord | null>;

  // ---- inbox ----
  /** Stores a delivery; false when its id was already recorded (duplicate: ignore it). */
  recordDelivery(delivery: DeliveryInput): Promise<boolean>;
  /**
   * Leases up to `limit` unprocessed, due (`availableAt <= now`) deliveries to `owner`, installations
   * in turn: the oldest due delivery of every installation first (oldest first), then the second
   * oldest of each, and so on, returned in that order. One installation's backlog never holds
   * another's deliveries back, and each installation's deliveries come in the order recorded. A
   * parked delivery waiting for its next attempt holds nothing else back.
   */
  claimDeliveries(owner: string, limit: number, leaseMs: number, now: number): Promise<InboxDelivery[]>;
  /**
   * Whether a delivery with the same coalescing key as `id` was recorded after it and was not given
   * up (it is waiting, in flight or processed). False for an unknown id or one without a key.
   */
  hasNewerDelivery(id: string): Promise<boolean>;
  /**
   * Marks a delivery processed, or given up (dead-lettered) with `error`: it is never claimed again.
   */
  completeDelivery(id: string, now: number, error?: string): Promise<void>;
  /**
   * A failed attempt: releases the lease, records `error` and parks the delivery until `retryAt`
   * (attempts are kept). False when the delivery is unknown or already completed.
   */
  failDelivery(id: string, error: string, retryAt: number): Promise<boolean>;
  /** Where a delivery stands, or null when it was never recorded (or pruned). */
  getDelivery(id: string): Promise<DeliveryRecord | null>;
  /**
   * Deletes processed deliveries completed before `olderThan`; returns how many. A pruned id is no
   * longer deduplicated, so keep them longer than a redelivery could come (days).
   */
  pruneDeliveries(olderThan: number): Promise<number>;

  // ---- timers ----
  /** Leases up to `limit` timers with `at <= now` to `owner`, earliest first. */
  claimDueTimers(owner: string, now: number, limit: number, leaseMs: number): Promise<DueTimer[]>;
  /**
   * Deletes a handled timer, only if it still has the claimed `at` (a commit that re-set it meanwhile
   * wins). Returns whether it was deleted.
   */
  deleteTimer(timer: DueTimer): Promise<boolean>;

  // ---- leases ----
  /**
   * Frees every effect, delivery and timer still leased to `owner` (not completed): they can be
   * claimed again at once instead of when their leases end. For a worker starting under the name
   * of its previous, dead incarnation (a restart with the same `LOOM_WORKER_ID`); wrong while
   * another live worker uses the same name, hence worker names must be unique per replica.
   * Attempts are kept. Returns how many leases were freed.
   */
  releaseLeases(owner: string): Promise<number>;
}
