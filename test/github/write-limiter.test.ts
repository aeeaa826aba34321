import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Redis } from "ioredis";
import {
  createWriteLimiter,
  GITHUB_WRITE_LIMITS,
  memoryWindowStore,
  PROGRESS_RESERVE,
  redisWindowStore,
  runAsDisplayWrites,
  waitForSlot,
  WriteLimitWaitError,
  type WindowLimit,
} from "../../app/github/write-limiter.ts";
import { findRedisSkipReason, TEST_REDIS_URL } from "../support/test-redis.ts";

/** The most grants any window of `windowMs` (both ends included) holds. */
function busiestWindow(times: readonly number[], windowMs: number): number {
  let most = 0;
  for (let i = 0, j = 0; j < times.length; j++) {
    while (times[j]! - times[i]! > windowMs) i++;
    most = Math.max(most, j - i + 1);
  }
  return most;
}

/** Grants `count` writes one after another on a virtual clock that jumps over every wait. */
async function grantTimes(count: number, limits: readonly WindowLimit[], spacingMs = 0): Promise<number[]> {
  let clock = 1_000_000;
  const store = memoryWindowStore(() => clock);
  const times: number[] = [];
  while (times.length < count) {
    const wait = await store.reserve("installation-1", limits);
    if (wait > 0) clock += wait;
    else {
      times.push(clock);
      clock += spacingMs;
    }
  }
  return times;
}

describe("GitHub write limiter (LOOM_GITHUB_THROTTLE=on)", () => {
  it("never lets more than 80 writes into any 60 s window", async () => {
    const times = await grantTimes(1_200, GITHUB_WRITE_LIMITS);
    // A second of margin: GitHub sees each write a little after loom sends it.
    assert.equal(busiestWindow(times, 61_000), 80);
    assert.ok(busiestWindow(times, 60_000) <= 80);
  });

  it("lets a burst of 80 go at once and the 81st go as soon as the first leaves the window", async () => {
    const times = await grantTimes(81, GITHUB_WRITE_LIMITS);
    assert.deepEqual(new Set(times.slice(0, 80)), new Set([times[0]]));
    assert.equal(times[80]! - times[0]!, 61_001);
  });

  it("does not slow writes that stay under the limits (one a second is never held)", async () => {
    const times = await grantTimes(70, GITHUB_WRITE_LIMITS, 1_000);
    for (let i = 1; i < times.length; i++) assert.equal(times[i]! - times[i - 1]!, 1_000);
  });

  it("keeps every window it is given: a burst of 3 a second and 5 in 10 s", async () => {
    const times = await grantTimes(40, [
      { limit: 3, windowMs: 1_000 },
      { limit: 5, windowMs: 10_000 },
    ]);
    assert.equal(busiestWindow(times, 1_000), 3);
    assert.equal(busiestWindow(times, 10_000), 5);
  });

  it("waits exactly until the oldest write it must outlive has left each window", () => {
    const limits = [{ limit: 3, windowMs: 100 }];
    assert.equal(waitForSlot([], 500, limits), 0);
    assert.equal(waitForSlot([450, 460], 500, limits), 0);
    assert.equal(waitForSlot([450, 460, 470], 500, limits), 51);
    // Writes older than the window do not count; the one at its very start still does.
    assert.equal(waitForSlot([300, 400, 460, 470], 500, limits), 1);
    assert.equal(waitForSlot([300, 399, 460, 470], 500, limits), 0);
    // The longest wait of several windows wins.
    assert.equal(waitForSlot([10, 450, 460], 500, [...limits, { limit: 3, windowMs: 1_000 }]), 511);
  });

  it("keeps one budget per installation", async () => {
    const clock = 0;
    const store = memoryWindowStore(() => clock);
    const limits = [{ limit: 2, windowMs: 1_000 }];
    assert.equal(await store.reserve("1", limits), 0);
    assert.equal(await store.reserve("1", limits), 0);
    assert.equal(await store.reserve("1", limits), 1_001);
    assert.equal(await store.reserve("2", limits), 0);
  });

  it("grants nothing to an installation GitHub paused with a secondary rate limit until retry-after has passed", async () => {
    let clock = 0;
    const store = memoryWindowStore(() => clock);
    await store.pause("1", 30_000);
    assert.equal(await store.reserve("1", GITHUB_WRITE_LIMITS), 30_000);
    assert.equal(await store.reserve("2", GITHUB_WRITE_LIMITS), 0);
    clock = 30_000;
    assert.equal(await store.reserve("1", GITHUB_WRITE_LIMITS), 0);
  });

  it("refuses a wait longer than a worker may hold its work, granting nothing, so the work is handed back", async () => {
    const store = memoryWindowStore();
    const limiter = createWriteLimiter(store, GITHUB_WRITE_LIMITS, 62_000);
    await limiter.pause("1", 600_000);
    await assert.rejects(limiter.acquire("1"), (error: unknown) => {
      assert.ok(error instanceof WriteLimitWaitError);
      assert.ok(error.waitMs > 590_000 && error.waitMs <= 600_000);
      assert.match(error.message, /write limit .* next write may go in 600 s/);
      return true;
    });
    await limiter.acquire("2");
  });

  it("gives up a wait when loom stops, so the work stays leased for the next worker", async () => {
    const limiter = createWriteLimiter(memoryWindowStore(), [{ limit: 1, windowMs: 60_000 }]);
    await limiter.acquire("1");
    const stopping = new AbortController();
    const waiting = limiter.acquire("1", stopping.signal);
    stopping.abort();
    await assert.rejects(waiting, { name: "AbortError" });
  });
});

const redisSkip = await findRedisSkipReason("write-limiter tests");

describe(
  "GitHub write limiter in Redis (REDIS_URL: one budget for every replica)",
  { skip: redisSkip ?? false },
  () => {
    it("two replicas sharing Redis never exceed the window together, and a burst goes at once", async () => {
      const clients = [new Redis(TEST_REDIS_URL), new Redis(TEST_REDIS_URL)];
      const prefix = `loom-test:writes:${process.pid}:${Date.now()}`;
      try {
        // The long, roomy window only keeps every grant time in Redis for the check below.
        const limits = [
          { limit: 5, windowMs: 400 },
          { limit: 1_000, windowMs: 60_000 },
        ];
        const replicas = clients.map((client) =>
          createWriteLimiter(redisWindowStore(client, prefix), limits),
        );
        const first = await Promise.all(
          [0, 1, 2, 3, 4].map((i) => redisWindowStore(clients[i % 2]!, prefix).reserve("7", limits)),
        );
        assert.deepEqual(first, [0, 0, 0, 0, 0], "the first five writes of a burst wait for nothing");
        await Promise.all(Array.from({ length: 12 }, (_, i) => replicas[i % 2]!.acquire("7")));
        const scored = await clients[0]!.zrange(`${prefix}:7`, 0, -1, "WITHSCORES");
        const times = scored.filter((_, i) => i % 2 === 1).map(Number);
        assert.equal(times.length, 17);
        assert.ok(
          busiestWindow(times, 400) <= 5,
          `at most 5 grants in any 400 ms, got ${busiestWindow(times, 400)}`,
        );
        const pausedFor = await redisWindowStore(clients[1]!, prefix).reserve("8", limits);
        assert.equal(pausedFor, 0, "another installation has its own budget");
        await redisWindowStore(clients[0]!, prefix).pause("8", 5_000);
        const wait = await redisWindowStore(clients[1]!, prefix).reserve("8", limits);
        assert.ok(wait > 4_000 && wait <= 5_000, `a pause set by one replica holds the other (${wait} ms)`);
      } finally {
        await clients[0]!.del(`${prefix}:7`, `${prefix}:8`, `${prefix}:8:paused`);
        for (const client of clients) client.disconnect();
      }
    });
  },
);

describe("the write limiter keeps a reserve for writes that move plans forward", () => {
  const minute = [{ limit: 80, windowMs: 61_000 }];
  it("display writes stop 20 short of the window's limit; dispatches and merges may fill it", async () => {
    let now = 1_000;
    // A wait longer than 0 ms throws: what would wait is visible at once.
    const limiter = createWriteLimiter(
      memoryWindowStore(() => now),
      minute,
      0,
    );
    for (let i = 0; i < 80 - PROGRESS_RESERVE; i++) {
      await runAsDisplayWrites(() => limiter.acquire("inst"));
      now += 10;
    }
    await assert.rejects(
      runAsDisplayWrites(() => limiter.acquire("inst")),
      WriteLimitWaitError,
      "a display write waits once 60 writes are in the window",
    );
    for (let i = 0; i < PROGRESS_RESERVE; i++) await limiter.acquire("inst");
    await assert.rejects(limiter.acquire("inst"), WriteLimitWaitError, "the window itself is full at 80");
    now += 61_001;
    await runAsDisplayWrites(() => limiter.acquire("inst"));
  });
});
