import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, it } from "node:test";
import pino from "pino";
import { Probot, ProbotOctokit } from "probot";
import type { Engine } from "../../app/engine/create-engine.ts";
import { boundOctokit } from "../../app/github/bound-octokit.ts";
import { createLoomApp } from "../../app/index.ts";
import { stopLoom, stopsWithGrace } from "../../app/stop-loom.ts";
import { openStore } from "../../app/store/open-store.ts";
import type { Store } from "../../app/store/store.ts";
import { makeDiamond } from "../status/make-plan-state.ts";
import { createPrivateKey } from "../support/create-private-key.ts";
import { REPO_SETTINGS } from "./stored-plan-fixture.ts";
import { pullRequestPayload } from "../support/webhook-payloads.ts";
import { freePort } from "../support/free-port.ts";

/*
 * Issue 13: with GitHub unreachable, a delivery holds the worker for one bounded attempt, then
 * waits in the inbox while later deliveries flow; stopping loom abandons a request that hangs and
 * hands the interrupted delivery on with the worker's leases. Probot's real Octokit (retry plugin
 * on, as in production) shows the client adds no retries of its own. No timing is asserted: a
 * test that hung instead would be ended by its timeout.
 */

const WORKER = "unreachable-worker";
const NOW = Date.UTC(2026, 10, 26, 8, 0, 0);
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A GitHub that accepts connections and reads requests but never answers; requests are counted. */
async function startSilentGitHub() {
  const requests: string[] = [];
  const waiting: (() => void)[] = [];
  const open: ServerResponse[] = [];
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    requests.push(`${request.method} ${request.url}`);
    open.push(response);
    for (const wake of waiting.splice(0)) wake();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const response of open) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    firstRequest: () =>
      new Promise<void>((resolve) => (requests.length > 0 ? resolve() : waiting.push(resolve))),
  };
}

async function startLoom(baseUrl: string, timeoutMs: number) {
  const dir = mkdtempSync(join(tmpdir(), "loom-unreachable-"));
  const sqlitePath = join(dir, "loom.sqlite");
  const store = await openStore({ sqlitePath });
  let closed = false;
  cleanups.push(async () => {
    if (!closed) await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const halt = new AbortController();
  const probot = new Probot({
    appId: 1,
    privateKey: createPrivateKey(),
    baseUrl,
    log: pino({ level: process.env["LOOM_TEST_LOG"] ?? "silent" }),
    Octokit: boundOctokit(ProbotOctokit, { timeoutMs, stopping: halt.signal }),
  });
  let engine: Engine | undefined;
  await probot.load(
    createLoomApp({
      store,
      now: () => NOW,
      workerId: WORKER,
      botLogin: "loom[bot]",
      autoDrain: false,
      sleep: () => Promise.resolve(),
      stopping: halt.signal,
      onEngine: (created) => (engine = created),
    }),
  );
  assert.ok(engine, "the app created its engine");
  const record = (id: string, name: string, payload: unknown, receivedAt: number) =>
    store.recordDelivery({ id, name, payload, receivedAt });
  return {
    store,
    engine,
    halt,
    sqlitePath,
    record,
    markClosed: () => (closed = true),
  };
}

/** Stops loom as SIGTERM does (no grace), while `draining` runs; the stop's log lines. */
async function stopNow(loom: Awaited<ReturnType<typeof startLoom>>, draining: Promise<unknown>) {
  const lines: { message: string; data: object }[] = [];
  const log = {
    info: (data: object, message: string) => lines.push({ message, data }),
    error: (data: object, message: string) => lines.push({ message, data }),
  };
  const running = {
    store: loom.store,
    workerId: WORKER,
    engine: stopsWithGrace(loom.engine, loom.halt),
    server: null,
    log,
  };
  const ok = await stopLoom(running, log, 0);
  loom.markClosed();
  await draining;
  return { ok, lines };
}

const pullOpened = pullRequestPayload("opened", { number: 1, headSha: "a".repeat(40) });

async function recordTwo(loom: {
  record: (id: string, name: string, p: unknown, at: number) => Promise<boolean>;
}) {
  await loom.record("needs-github", "pull_request", pullOpened, NOW - 2_000);
  await loom.record("later", "star", { action: "created" }, NOW - 1_000);
}

describe(
  "GitHub unreachable: a delivery holds the worker for one bounded attempt",
  { timeout: 60_000 },
  () => {
    it("GitHub never answers: the delivery is parked after one request, with the reason, and the next one is processed", async () => {
      const github = await startSilentGitHub();
      const loom = await startLoom(github.url, 200);
      await recordTwo(loom);
      await loom.engine.drain();

      const parked = await loom.store.getDelivery("needs-github");
      assert.equal(parked?.completedAt, null, "not processed, not given up");
      assert.match(parked?.lastError ?? "", /GitHub did not answer within 0\.2 s/);
      assert.ok((parked?.availableAt ?? 0) > NOW, "it waits for its next attempt (inbox backoff)");
      assert.notEqual(
        (await loom.store.getDelivery("later"))?.completedAt,
        null,
        "the later delivery flowed",
      );
      // Octokit's retry plugin would have asked 4 times (1 + 4 + 9 s apart): the inbox retries instead.
      assert.deepEqual(github.requests, ["POST /app/installations/4242/access_tokens"]);
    });

    it("GitHub refuses connections: the delivery is parked with the reason and the next one is processed", async () => {
      const loom = await startLoom(`http://127.0.0.1:${await freePort()}`, 60_000);
      await recordTwo(loom);
      await loom.engine.drain();

      const parked = await loom.store.getDelivery("needs-github");
      assert.equal(parked?.completedAt, null);
      assert.match(parked?.lastError ?? "", /GitHub unreachable: connect ECONNREFUSED/);
      assert.notEqual((await loom.store.getDelivery("later"))?.completedAt, null);
    });
  },
);

describe("stopping loom while a GitHub request hangs", { timeout: 60_000 }, () => {
  it("abandons the request, counts no failed attempt and releases the lease, so nothing is lost", async () => {
    const github = await startSilentGitHub();
    // A request timeout far beyond the test's: only the stop can end the hanging request.
    const loom = await startLoom(github.url, 600_000);
    await recordTwo(loom);
    const draining = loom.engine.drain();
    await github.firstRequest();

    const { ok, lines } = await stopNow(loom, draining);
    assert.equal(ok, true, JSON.stringify(lines));
    assert.deepEqual(
      lines.map((line) => line.message),
      [
        "stopped the engine; the work in flight is finished",
        "released this worker's leases",
        "closed the store",
      ],
    );
    assert.deepEqual(
      lines[1]?.data,
      { released: 2, workerId: WORKER },
      "the interrupted delivery and the one not started",
    );

    const store: Store = await openStore({ sqlitePath: loom.sqlitePath });
    cleanups.push(() => store.close());
    const interrupted = await store.getDelivery("needs-github");
    assert.equal(interrupted?.lastError, null, "no failed attempt is recorded");
    assert.equal(interrupted?.completedAt, null);
    const next = await store.claimDeliveries("another-replica", 10, 60_000, NOW);
    assert.deepEqual(
      next.map((delivery) => delivery.id),
      ["needs-github", "later"],
      "another worker takes both at once: the interrupted one and the one never started",
    );
  });

  it("abandons an effect's hanging request the same way: no failed attempt, and another replica takes the effect at once", async () => {
    const github = await startSilentGitHub();
    const loom = await startLoom(github.url, 600_000);
    const key = {
      installationId: 4242,
      owner: "acme",
      repo: "widgets",
      pr: 7,
      planPath: "doc/plans/PLAN-demo.md",
    };
    const cleanup = { type: "deleteBranch", key: "k:cleanup-a", branch: "loom/pr-7/PLAN-demo/a" };
    await loom.store.commitPlan(key, {
      expectedVersion: 0,
      state: { format: 1, state: makeDiamond(), repo: REPO_SETTINGS },
      active: true,
      effects: [{ key: cleanup.key, effect: cleanup }],
      timers: [],
      now: NOW,
    });
    const draining = loom.engine.drain();
    await github.firstRequest();
    assert.equal((await stopNow(loom, draining)).ok, true);

    const store: Store = await openStore({ sqlitePath: loom.sqlitePath });
    cleanups.push(() => store.close());
    const effect = await store.getEffect(cleanup.key);
    assert.equal(effect?.status, "pending", "not given up");
    assert.equal(effect?.lastError, null, "no failed attempt is recorded");
    const next = await store.claimEffects("another-replica", 10, 60_000, NOW);
    assert.deepEqual(
      next.map((item) => item.key),
      [cleanup.key],
      "the lease was released: another worker takes the effect at once",
    );
  });
});
