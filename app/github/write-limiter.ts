import { AsyncLocalStorage } from "node:async_hooks";
import { setTimeout as sleep } from "node:timers/promises";

/** At most `limit` requests in any window of `windowMs` (both ends included). */
export type WindowLimit = { limit: number; windowMs: number };

/**
 * GitHub's documented secondary limit on content-creating requests, per installation: 80 a
 * minute (FACTS.md). loom counts every write (POST, PATCH, PUT, DELETE) against it, the stricter
 * reading: GitHub does not list which endpoints "create content". The window is a second longer
 * than GitHub's: loom times a write when it sends it, GitHub when it arrives. GitHub's other
 * limit, 500 an hour, is not waited for ahead: a wait of up to an hour would outlast the
 * two-minute lease of the work waiting (another replica would take it and write too); when GitHub
 * answers that limit, the installation's writes pause for its `retry-after` instead.
 */
export const GITHUB_WRITE_LIMITS: readonly WindowLimit[] = [{ limit: 80, windowMs: 61_000 }];

/**
 * How long (ms) one more request must wait to fit every window, given the times of earlier
 * requests in ascending order: 0 when it may go now. A window counts the requests made at
 * `now - windowMs` through `now`; when it is full, the request waits until the oldest one it must
 * outlive has left.
 */
export function waitForSlot(times: readonly number[], now: number, limits: readonly WindowLimit[]): number {
  let wait = 0;
  for (const { limit, windowMs } of limits) {
    const first = times.findIndex((time) => time >= now - windowMs);
    const inWindow = first === -1 ? 0 : times.length - first;
    if (inWindow >= limit) wait = Math.max(wait, times[first + inWindow - limit]! + windowMs + 1 - now);
  }
  return wait;
}

/**
 * Where the times of granted requests live: in this process, or in Redis so that every replica of
 * loom shares one budget per installation. `reserve` is atomic: it records `now` and answers 0
 * when the request fits, else answers how long to wait and records nothing.
 */
export interface WindowStore {
  reserve(key: string, limits: readonly WindowLimit[]): Promise<number>;
  /** Nothing is granted for `key` during the next `ms` (GitHub answered a secondary rate limit). */
  pause(key: string, ms: number): Promise<void>;
}

/** A `WindowStore` in this process's memory (one replica, or tests). */
export function memoryWindowStore(now: () => number = Date.now): WindowStore {
  const times = new Map<string, number[]>();
  const pausedUntil = new Map<string, number>();
  return {
    reserve(key, limits) {
      const at = now();
      const paused = (pausedUntil.get(key) ?? 0) - at;
      if (paused > 0) return Promise.resolve(paused);
      const longest = Math.max(...limits.map((window) => window.windowMs));
      const kept = (times.get(key) ?? []).filter((time) => time >= at - longest);
      const wait = waitForSlot(kept, at, limits);
      if (wait === 0) kept.push(at);
      times.set(key, kept);
      return Promise.resolve(wait);
    },
    pause(key, ms) {
      pausedUntil.set(key, Math.max(pausedUntil.get(key) ?? 0, now() + ms));
      return Promise.resolve();
    },
  };
}

/** The part of an ioredis client the Redis store uses. */
export type RedisEval = {
  eval(script: string, keys: number, ...args: (string | number)[]): Promise<unknown>;
};

/*
 * KEYS[1] the sorted set of grant times, KEYS[2] the pause marker; ARGV: a unique member, then
 * limit and window pairs. Times come from the Redis server's clock, the one clock all replicas share.
 */
const RESERVE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local paused = redis.call('PTTL', KEYS[2])
if paused > 0 then return paused end
local longest = 0
for i = 2, #ARGV, 2 do longest = math.max(longest, tonumber(ARGV[i + 1])) end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (now - longest))
local wait = 0
for i = 2, #ARGV, 2 do
  local limit = tonumber(ARGV[i])
  local window = tonumber(ARGV[i + 1])
  local count = redis.call('ZCOUNT', KEYS[1], now - window, '+inf')
  if count >= limit then
    local oldest = redis.call('ZRANGEBYSCORE', KEYS[1], now - window, '+inf', 'WITHSCORES', 'LIMIT', count - limit, 1)
    wait = math.max(wait, tonumber(oldest[2]) + window + 1 - now)
  end
end
if wait == 0 then
  redis.call('ZADD', KEYS[1], now, ARGV[1])
  redis.call('PEXPIRE', KEYS[1], longest + 1000)
end
return wait
`;

/** A `WindowStore` in Redis (`REDIS_URL`): one budget per installation across every replica. */
export function redisWindowStore(redis: RedisEval, prefix = "loom:github-writes"): WindowStore {
  let sequence = 0;
  const member = (): string => `${process.pid}:${Date.now()}:${sequence++}:${Math.random()}`;
  return {
    async reserve(key, limits) {
      const pairs = limits.flatMap(({ limit, windowMs }) => [limit, windowMs]);
      const wait = await redis.eval(
        RESERVE_SCRIPT,
        2,
        `${prefix}:${key}`,
        `${prefix}:${key}:paused`,
        member(),
        ...pairs,
      );
      return Number(wait);
    },
    async pause(key, ms) {
      if (ms <= 0) return;
      // Keep the longer of an existing pause and this one.
      await redis.eval(
        "if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], '1', 'PX', ARGV[1]) end return 0",
        1,
        `${prefix}:${key}:paused`,
        Math.ceil(ms),
      );
    },
  };
}

/**
 * A write would have to wait longer than a worker may hold its work (GitHub paused the
 * installation with a long `retry-after`): the work is handed back to run at `retryAt`.
 */
export class WriteLimitWaitError extends Error {
  override name = "WriteLimitWaitError";
  readonly waitMs: number;
  constructor(waitMs: number) {
    super(
      `GitHub's write limit for this installation is reached; the next write may go in ${Math.ceil(waitMs / 1000)} s`,
    );
    this.waitMs = waitMs;
  }
}

/** The `WriteLimitWaitError` behind `error` (itself or a cause), or null. */
export function findWriteLimitWait(error: unknown): WriteLimitWaitError | null {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++)
    if (e instanceof WriteLimitWaitError) return e;
  return null;
}

/**
 * Writes that only show a plan (check runs, the status comment, replies, labels) leave this many
 * slots of each window to writes that move plans forward (dispatches, merges): a burst of display
 * writes never makes a dispatch wait for the window to pass.
 */
export const PROGRESS_RESERVE = 20;

const displayWrites = new AsyncLocalStorage<true>();

/** Runs `work` with its GitHub writes counted as display writes (they leave `PROGRESS_RESERVE`). */
export function runAsDisplayWrites<T>(work: () => Promise<T>): Promise<T> {
  return displayWrites.run(true, work);
}

/** The windows a write may fill: all of each for progress writes, less the reserve for display ones. */
export function limitsForThisWrite(limits: readonly WindowLimit[]): readonly WindowLimit[] {
  if (displayWrites.getStore() !== true) return limits;
  return limits.map((window) => ({ ...window, limit: Math.max(1, window.limit - PROGRESS_RESERVE) }));
}

/** The longest a write waits for its slot in the request; longer waits throw `WriteLimitWaitError`. */
export const MAX_WRITE_WAIT_MS = 62_000;

export type WriteLimiter = {
  /** Resolves when one more write for `key` fits every window; rejects when `signal` aborts. */
  acquire(key: string, signal?: AbortSignal): Promise<void>;
  pause(key: string, ms: number): Promise<void>;
};

/**
 * A sliding-window limiter for GitHub writes: a burst goes out at once up to each window's limit,
 * later writes wait exactly until the oldest write they must outlive has left the window, so no
 * window ever holds more than its limit. Replaces Octokit's fixed spacing (one write a second,
 * one comment every three), which made every hop of a plan wait seconds.
 */
export function createWriteLimiter(
  store: WindowStore,
  limits: readonly WindowLimit[] = GITHUB_WRITE_LIMITS,
  maxWaitMs = MAX_WRITE_WAIT_MS,
): WriteLimiter {
  return {
    async acquire(key, signal) {
      const windows = limitsForThisWrite(limits);
      let waited = 0;
      for (;;) {
        signal?.throwIfAborted();
        const wait = await store.reserve(key, windows);
        if (wait <= 0) return;
        if (waited + wait > maxWaitMs) throw new WriteLimitWaitError(wait);
        await sleep(wait, undefined, signal === undefined ? {} : { signal });
        waited += wait;
      }
    },
    pause: (key, ms) => store.pause(key, ms),
  };
}
