import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { executeEffect } from "../../app/github/execute-effect.ts";
import { createBoundedMap, createGitHubCache } from "../../app/github/github-cache.ts";
import { readZip } from "../../app/github/read-zip.ts";
import {
  createWriteLimiter,
  findWriteLimitWait,
  memoryWindowStore,
  redisWindowStore,
  WriteLimitWaitError,
} from "../../app/github/write-limiter.ts";
import type { RedisEval } from "../../app/github/write-limiter.ts";
import { mockGitHub } from "../support/github-mock.ts";
import type { GitHubMock } from "../support/github-mock.ts";
import { makeDiamond } from "../status/make-plan-state.ts";
import { makeContext } from "./make-context.ts";
import { makeZip } from "./make-zip.ts";

let gh: GitHubMock | undefined;
afterEach(() => gh?.cleanup());

describe("the process cache", () => {
  it("forgets its oldest entries beyond its limit; a key written again is the newest", () => {
    const map = createBoundedMap<number>(2);
    map.set("a", 1);
    map.set("b", 2);
    map.set("a", 3);
    map.set("c", 4);
    assert.deepEqual(
      ["a", "b", "c"].map((key) => map.get(key)),
      [3, undefined, 4],
    );
    map.delete("a");
    assert.equal(map.get("a"), undefined);
    assert.equal(map.get("c"), 4);
  });

  it("a status comment loom forgot is looked up again, never created twice", async () => {
    gh = mockGitHub();
    const COMMENTS = "/repos/octo/repo/issues/7/comments";
    const MARKER = "<!-- loom:status:doc/plans/PLAN-demo.md -->";
    gh.api.get(COMMENTS).query({ per_page: "100", page: "1" }).reply(200, []);
    gh.api.post(COMMENTS).reply(201, { id: 10 });
    gh.api
      .get(COMMENTS)
      .query({ per_page: "100", page: "1" })
      .reply(200, [{ id: 10, body: `${MARKER}\n…`, user: { login: "loom[bot]", type: "Bot" } }]);
    gh.api.patch("/repos/octo/repo/issues/comments/10").reply(200, { id: 10 });
    // A cache of one entry per map: remembering the label pushes the comment out.
    const cache = createGitHubCache(1);
    const ctx = makeContext(makeDiamond(), { cache });
    await executeEffect(ctx, { type: "syncStatusComment", key: "s" });
    cache.ids.set("something else", 1);
    cache.written.set("something else", "x");
    await executeEffect(ctx, { type: "syncStatusComment", key: "s" });
    assert.equal(gh.find("POST", COMMENTS).length, 1);
    gh.done();
  });
});

describe("the write limiter's hand-back", () => {
  it("says when the next write may go, in whole seconds", () => {
    const error = new WriteLimitWaitError(2_001);
    assert.equal(error.name, "WriteLimitWaitError");
    assert.equal(error.waitMs, 2_001);
    assert.equal(
      error.message,
      "GitHub's write limit for this installation is reached; the next write may go in 3 s",
    );
  });

  it("is found behind the errors that wrap it, up to 5 deep", () => {
    const wait = new WriteLimitWaitError(1_000);
    let wrapped: Error = wait;
    for (let depth = 1; depth <= 4; depth++) wrapped = new Error(`wrap ${depth}`, { cause: wrapped });
    assert.equal(findWriteLimitWait(wait), wait);
    assert.equal(findWriteLimitWait(wrapped), wait);
    assert.equal(findWriteLimitWait(new Error("wrap 5", { cause: wrapped })), null);
    assert.equal(findWriteLimitWait(new Error("other", { cause: "text" })), null);
    assert.equal(findWriteLimitWait("text"), null);
    assert.equal(findWriteLimitWait(undefined), null);
  });

  it("a pause GitHub asked for is kept in full even when a shorter one comes after it", async () => {
    let clock = 1_000_000;
    const store = memoryWindowStore(() => clock);
    await store.pause("i", 30_000);
    await store.pause("i", 5_000);
    assert.equal(await store.reserve("i", [{ limit: 10, windowMs: 1_000 }]), 30_000);
    clock += 30_000;
    assert.equal(await store.reserve("i", [{ limit: 10, windowMs: 1_000 }]), 0);
  });

  it("a limiter waits through a short pause and then grants the write", async () => {
    let clock = 1_000_000;
    const store = memoryWindowStore(() => clock);
    const limiter = createWriteLimiter(store, [{ limit: 10, windowMs: 1_000 }], 1_000);
    await limiter.pause("i", 20);
    const started = Date.now();
    const granted = limiter.acquire("i");
    clock += 20;
    await granted;
    assert.ok(Date.now() - started >= 15, "it waited");
  });

  it("Redis keeps the longer pause, and a pause of nothing is not sent", async () => {
    const calls: unknown[][] = [];
    const redis: RedisEval = {
      eval: (...args) => {
        calls.push(args);
        return Promise.resolve("250");
      },
    };
    const store = redisWindowStore(redis, "p");
    await store.pause("i", 0);
    await store.pause("i", 1_500.2);
    assert.equal(calls.length, 1);
    assert.deepEqual(calls[0]?.slice(1), [1, "p:i:paused", 1_501]);
    assert.match(String(calls[0]?.[0]), /PTTL/);
    assert.equal(await store.reserve("i", [{ limit: 80, windowMs: 61_000 }]), 250);
    const reserve = calls[1] ?? [];
    assert.deepEqual(reserve.slice(1, 4), [2, "p:i", "p:i:paused"]);
    assert.deepEqual(reserve.slice(5), [80, 61_000]);
  });

  it("each Redis reservation is a member of its own, so two grants in the same millisecond both count", async () => {
    const members: unknown[] = [];
    const redis: RedisEval = {
      eval: (_script, _keys, ...args) => {
        members.push(args[2]);
        return Promise.resolve(0);
      },
    };
    const store = redisWindowStore(redis);
    await store.reserve("i", [{ limit: 80, windowMs: 61_000 }]);
    await store.reserve("i", [{ limit: 80, windowMs: 61_000 }]);
    assert.equal(new Set(members).size, 2);
    assert.ok(members.every((m) => typeof m === "string" && m.length > 0));
  });
});

describe("artifact archives", () => {
  it("an entry compressed with a method other than stored or deflate is refused, naming it", () => {
    const zip = makeZip({ "a.json": "{}" }, 0);
    zip.writeUInt16LE(12, 8);
    const central = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    zip.writeUInt16LE(12, central + 10);
    assert.deepEqual(readZip(zip), { ok: false, reason: "a.json uses unsupported compression method 12" });
  });

  it("directories are left out of the files", () => {
    const result = readZip(makeZip({ "dir/": "", "dir/a.json": "{}" }, 0));
    assert.deepEqual(result.ok && [...result.files.keys()], ["dir/a.json"]);
  });
});
