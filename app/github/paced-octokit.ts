import { ProbotOctokit } from "probot";
import {
  createWriteLimiter,
  MAX_WRITE_WAIT_MS,
  memoryWindowStore,
  redisWindowStore,
  type RedisEval,
  type WriteLimiter,
} from "./write-limiter.ts";

type Options = { throttle?: Record<string, unknown> } & Record<string, unknown>;

/** The part of a Bottleneck group `@octokit/plugin-throttling` calls: `group.key(id).schedule(options, fn)`. */
type Group = {
  key(id: string): {
    schedule<T>(options: unknown, fn: (...args: unknown[]) => Promise<T>, ...args: unknown[]): Promise<T>;
  };
};

/** Retries of a request GitHub refused with a secondary rate limit, after its `retry-after`. */
const SECONDARY_LIMIT_RETRIES = 2;

export type PacedOctokitOptions = {
  /** Aborting gives up waits for a write slot (shutdown): the work stays leased for the next worker. */
  stopping?: AbortSignal;
  /** The limiter to use; by default one in memory, or in Redis when Probot has `REDIS_URL`. */
  limiter?: WriteLimiter;
};

/**
 * Probot's Octokit with loom's pacing (`LOOM_GITHUB_THROTTLE=on`, the default): writes go through a
 * sliding-window limiter that follows GitHub's documented secondary limits per installation (80
 * content-creating requests a minute) instead of `@octokit/plugin-throttling`'s fixed
 * spacing (one write a second, one comment every three seconds). A burst (a merge, then the
 * dependents' dispatches) goes out at once; sustained load stays inside the limits. When GitHub
 * still answers a secondary rate limit, the installation's writes pause for its `retry-after` and
 * the request is retried. With Probot's `REDIS_URL` the windows live in Redis, shared by every
 * replica. Reads keep the plugin's concurrency cap (10 at once). A function default, like
 * `UnthrottledOctokit`: Probot's own throttle options (its Redis connection) are kept.
 */
export function pacedOctokit(options: PacedOctokitOptions = {}): typeof ProbotOctokit {
  let memory: WriteLimiter | undefined;
  const byRedis = new WeakMap<object, WriteLimiter>();
  const limiterFor = (connection: unknown): WriteLimiter => {
    if (options.limiter) return options.limiter;
    const client = (connection as { client?: RedisEval } | undefined)?.client;
    if (client === undefined) return (memory ??= createWriteLimiter(memoryWindowStore()));
    let limiter = byRedis.get(client);
    if (limiter === undefined) byRedis.set(client, (limiter = createWriteLimiter(redisWindowStore(client))));
    return limiter;
  };
  return ProbotOctokit.defaults((given: Options) => {
    const throttle = given.throttle ?? {};
    if (throttle["enabled"] === false) return given;
    const limiter = limiterFor(throttle["connection"]);
    const write: Group = {
      key: (id) => ({
        async schedule(_options, fn, ...args) {
          await limiter.acquire(id, options.stopping);
          return fn(...args);
        },
      }),
    };
    // Comments count against the same windows; no extra spacing of their own.
    const notifications: Group = { key: () => ({ schedule: (_options, fn, ...args) => fn(...args) }) };
    // Probot gives every installation's client its installation id (the plugin's `id`).
    const givenId = throttle["id"];
    const id = typeof givenId === "string" || typeof givenId === "number" ? String(givenId) : "no-id";
    return {
      ...given,
      throttle: {
        ...throttle,
        write,
        notifications,
        // Retried in the request only when the wait fits in it; otherwise the request fails and the
        // installation's next writes throw `WriteLimitWaitError` until the pause is over.
        onSecondaryRateLimit: async (
          retryAfter: number,
          _request: unknown,
          _octokit: unknown,
          retryCount: number,
        ) => {
          await limiter.pause(id, retryAfter * 1000);
          return retryCount < SECONDARY_LIMIT_RETRIES && retryAfter * 1000 <= MAX_WRITE_WAIT_MS;
        },
      },
    };
  });
}
