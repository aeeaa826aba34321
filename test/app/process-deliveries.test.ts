import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import pino from "pino";
import type { EngineDeps } from "../../app/engine/engine-deps.ts";
import { INBOX_BACKOFF_CAP_MS, MAX_INBOX_ATTEMPTS } from "../../app/engine/inbox-backoff.ts";
import { PARKED_EVENTS } from "../../app/engine/park-events.ts";
import { processDeliveries } from "../../app/engine/process-deliveries.ts";
import { readDeliveryKeys } from "../../app/engine/read-delivery-keys.ts";
import { readStoredPlan } from "../../app/engine/stored-plan.ts";
import { createMetrics } from "../../app/metrics/create-metrics.ts";
import { formatPlanKey } from "../../app/store/store.ts";
import type { Store } from "../../app/store/store.ts";
import { formatCheckRunExternalId } from "../../src/status/check-run-external-id.ts";
import { makeDiamond, makeSession } from "../status/make-plan-state.ts";
import {
  checkRunPayload,
  checkSuitePayload,
  issueCommentPayload,
  pullRequestPayload,
  workflowRunPayload,
} from "../support/webhook-payloads.ts";
import { openTempStore } from "./loom-harness.ts";
import { DEMO_KEY, REPO_SETTINGS } from "./stored-plan-fixture.ts";

/*
 * The inbox worker: each claimed delivery goes to its event's handler and is completed; one that
 * fails waits in the inbox with its error until its next attempt (with backoff), and after
 * MAX_INBOX_ATTEMPTS is given up visibly; a superseded push is completed without work; when loom
 * stops, what it holds stays leased for the next worker. GitHub answers 502 to everything here.
 */

const NOW = Date.UTC(2026, 10, 27, 14, 0, 0);
const KEY = DEMO_KEY;
const STATE = makeDiamond({
  a: { status: "executing", attempt: 1, sessions: [makeSession({ runId: 1001 })] },
});
const HEAD = STATE.pr.headSha;
const alice = { login: "alice" };
const GITHUB_DOWN = "GitHub answered 502";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Line = {
  level: number;
  msg: string;
  delivery?: string;
  event?: string;
  attempts?: number;
  retryAt?: number;
  err?: { message: string };
};

type Options = {
  /** Instead of GitHub's 502 (e.g. to stop loom while GitHub is asked). */
  getOctokit?: EngineDeps["getOctokit"];
  stopping?: AbortSignal;
  /** Wraps the store the worker is given. */
  wrap?: (store: Store) => Store;
  /** False: an App without metrics (they are optional). */
  withMetrics?: boolean;
};

/** Plan `KEY` (stage a running as run 1001) stored, and a worker "w" on a clock that stands still. */
async function setUp(options: Options = {}) {
  const { store, close } = await openTempStore();
  cleanups.push(close);
  const committed = await store.commitPlan(KEY, {
    expectedVersion: 0,
    state: { format: 1, state: STATE, repo: REPO_SETTINGS },
    active: true,
    effects: [],
    timers: [],
    now: NOW,
  });
  assert.ok(committed.ok);
  let time = NOW;
  const lines: Line[] = [];
  const metrics = createMetrics({ store, defaultMetrics: false });
  const deps: EngineDeps = {
    store: options.wrap?.(store) ?? store,
    now: () => time,
    workerId: "w",
    log: pino({ level: "debug" }, { write: (line: string) => lines.push(JSON.parse(line) as Line) }),
    getBotLogin: () => Promise.resolve("loom[bot]"),
    getOctokit: options.getOctokit ?? (() => Promise.reject(new Error(GITHUB_DOWN))),
    ...(options.withMetrics === false ? {} : { metrics }),
    ...(options.stopping === undefined ? {} : { stopping: options.stopping }),
  };
  const record = async (id: string, name: string, payload: unknown) => {
    const keys = readDeliveryKeys(name, payload);
    assert.ok(await store.recordDelivery({ id, name, payload, receivedAt: time, ...keys }));
  };
  /** The processed-deliveries counter by outcome, as scraped. */
  const outcomes = async () => {
    const text = await metrics.registry.metrics();
    const found = [...text.matchAll(/^loom_webhook_deliveries_processed_total\{outcome="(\w+)"\} (\d+)$/gm)];
    return Object.fromEntries(found.map(([, outcome, count]) => [outcome, Number(count)]));
  };
  const clock = {
    set: (at: number) => {
      time = at;
    },
  };
  return { store, deps, lines, record, outcomes, clock };
}

/** Where each delivery stands: its attempts, last error, next attempt, completion and why given up. */
async function standing(store: Store, id: string) {
  const delivery = await store.getDelivery(id);
  assert.ok(delivery, `${id} is recorded`);
  const { attempts, lastError, availableAt, completedAt, error } = delivery;
  return { attempts, lastError, availableAt, completedAt, error };
}

const comment = (commentId: number) =>
  issueCommentPayload({ number: 7, body: "/loom retry a", sender: alice, commentId });

test("each delivery goes to its event's handler; an event loom does not use is completed without work", async () => {
  const { store, deps, lines, record, outcomes } = await setUp();
  const stageA = {
    id: 55,
    name: "loom: stage a",
    externalId: formatCheckRunExternalId(KEY.planPath, "a"),
    headSha: HEAD,
    pullNumber: 7,
    sender: alice,
  };
  const routed: [string, string, unknown][] = [
    ["pull", "pull_request", pullRequestPayload("opened", { number: 7, headSha: HEAD })],
    ["comment", "issue_comment", comment(31)],
    ["button", "check_run", checkRunPayload("requested_action", stageA)],
    ["suite", "check_suite", checkSuitePayload({ id: 66, headSha: HEAD, pullNumbers: [7], sender: alice })],
    ["run", "workflow_run", workflowRunPayload("completed", { id: 1001, displayTitle: "loom a" })],
    ["broken-parked", PARKED_EVENTS, { key: KEY }],
  ];
  for (const [id, name, payload] of routed) await record(id, name, payload);
  await record("star", "star", { action: "created" });
  const parked = { key: KEY, events: [{ type: "labels.changed", at: NOW, labels: ["loom:hold"] }] };
  await record("parked", PARKED_EVENTS, parked);

  assert.equal(await processDeliveries(deps, 20), routed.length + 2);
  // Each handler asked GitHub (or, for the broken parked events, read them): they wait for another attempt.
  for (const [id] of routed) {
    const { attempts, lastError, completedAt } = await standing(store, id);
    assert.deepEqual([attempts, completedAt], [1, null], id);
    if (id === "broken-parked") assert.match(lastError ?? "", /events/);
    else assert.equal(lastError, GITHUB_DOWN, id);
  }
  assert.deepEqual(await standing(store, "star"), {
    attempts: 1,
    lastError: null,
    availableAt: 0,
    completedAt: NOW,
    error: null,
  });
  assert.deepEqual((await standing(store, "parked")).completedAt, NOW);
  const record2 = await store.getPlan(KEY);
  assert.ok(record2);
  assert.equal(readStoredPlan(record2).state.hold, true, "the parked events were applied");
  assert.deepEqual(
    lines.filter((line) => line.msg === "event loom does not use").map((line) => [line.level, line.event]),
    [[20, "star"]],
  );
  assert.deepEqual(await outcomes(), { processed: 2, failed: routed.length });
});

test("a failed delivery waits in the inbox with its error until its next attempt, with backoff", async () => {
  const { store, deps, lines, record, outcomes, clock } = await setUp();
  await record("c1", "issue_comment", comment(31));
  assert.equal(await processDeliveries(deps, 10), 1);
  assert.deepEqual(await standing(store, "c1"), {
    attempts: 1,
    lastError: GITHUB_DOWN,
    availableAt: NOW + 5_000,
    completedAt: null,
    error: null,
  });
  clock.set(NOW + 4_999);
  assert.equal(await processDeliveries(deps, 10), 0, "not before its next attempt");
  clock.set(NOW + 5_000);
  assert.equal(await processDeliveries(deps, 10), 1);
  const second = await standing(store, "c1");
  assert.deepEqual([second.attempts, second.availableAt], [2, NOW + 5_000 + 10_000]);
  const warned = lines.filter((line) => line.level === 40);
  assert.deepEqual(
    warned.map((line) => [
      line.msg,
      line.delivery,
      line.event,
      line.attempts,
      line.retryAt,
      line.err?.message,
    ]),
    [1, 2].map((attempts) => [
      "delivery failed; it waits in the inbox for its next attempt",
      "c1",
      "issue_comment",
      attempts,
      attempts === 1 ? NOW + 5_000 : NOW + 15_000,
      GITHUB_DOWN,
    ]),
  );
  assert.deepEqual(await outcomes(), { failed: 2 });
});

test(`a delivery is given up after ${MAX_INBOX_ATTEMPTS} attempts: completed with the reason, counted, logged, and its command answered`, async () => {
  const { store, deps, lines, record, outcomes, clock } = await setUp();
  await record("c1", "issue_comment", comment(31));
  for (let attempt = 1; attempt < MAX_INBOX_ATTEMPTS; attempt++) {
    clock.set(NOW + attempt * INBOX_BACKOFF_CAP_MS);
    assert.equal(await processDeliveries(deps, 10), 1);
  }
  const waiting = await standing(store, "c1");
  assert.deepEqual([waiting.attempts, waiting.completedAt], [MAX_INBOX_ATTEMPTS - 1, null]);
  const givenUpAt = NOW + MAX_INBOX_ATTEMPTS * INBOX_BACKOFF_CAP_MS;
  clock.set(givenUpAt);
  assert.equal(await processDeliveries(deps, 10), 1);
  const reason = `gave up after ${MAX_INBOX_ATTEMPTS} attempts: ${GITHUB_DOWN}`;
  assert.deepEqual(await standing(store, "c1"), {
    attempts: MAX_INBOX_ATTEMPTS,
    lastError: GITHUB_DOWN,
    availableAt: waiting.availableAt,
    completedAt: givenUpAt,
    error: reason,
  });
  clock.set(givenUpAt + INBOX_BACKOFF_CAP_MS);
  assert.equal(await processDeliveries(deps, 10), 0, "never claimed again");
  assert.deepEqual(await outcomes(), { failed: MAX_INBOX_ATTEMPTS - 1, given_up: 1 });
  const reply = await store.getEffect(`${formatPlanKey(KEY)}|reply:given-up:c1:0`);
  assert.deepEqual(reply?.effect, {
    type: "reply",
    key: "reply:given-up:c1:0",
    source: { kind: "comment", commentId: 31 },
    reaction: "-1",
    body: `loom could not carry out this command and gave up after ${MAX_INBOX_ATTEMPTS} attempts: ${GITHUB_DOWN}. Nothing changed; give the command again.`,
  });
  assert.deepEqual(
    lines
      .filter((line) => line.level === 50)
      .map((line) => [line.msg, line.delivery, line.event, line.attempts, line.err?.message]),
    [["delivery given up (dead-lettered)", "c1", "issue_comment", MAX_INBOX_ATTEMPTS, GITHUB_DOWN]],
  );
});

test("a given-up command whose reply cannot be enqueued is still given up, and the failure logged", async () => {
  const { store, deps, lines, record, outcomes } = await setUp({
    wrap: (inner) =>
      Object.assign(Object.create(null) as object, inner, {
        commitPlan: () => Promise.reject(new Error("database is locked")),
      }),
  });
  await record("c1", "issue_comment", comment(31));
  // The delivery failed nine times already.
  for (let attempt = 1; attempt < MAX_INBOX_ATTEMPTS; attempt++) {
    assert.equal((await store.claimDeliveries("old", 10, 0, NOW)).length, 1);
    await store.failDelivery("c1", GITHUB_DOWN, NOW);
  }
  assert.equal(await processDeliveries(deps, 10), 1);
  const { completedAt, error } = await standing(store, "c1");
  assert.deepEqual(
    [completedAt, error],
    [NOW, `gave up after ${MAX_INBOX_ATTEMPTS} attempts: ${GITHUB_DOWN}`],
  );
  assert.deepEqual(await outcomes(), { given_up: 1 });
  assert.deepEqual(
    lines.filter((line) => line.level === 50).map((line) => [line.msg, line.delivery, line.err?.message]),
    [
      ["delivery given up (dead-lettered)", "c1", GITHUB_DOWN],
      ["could not enqueue the reply to a given-up command", "c1", "database is locked"],
    ],
  );
});

test("what fails without an Error is recorded as its text", async () => {
  const { store, deps, record } = await setUp({
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- a library may reject with anything
    getOctokit: () => Promise.reject("rate limited"),
  });
  await record("c1", "issue_comment", comment(31));
  await processDeliveries(deps, 10);
  assert.equal((await standing(store, "c1")).lastError, "rate limited");
});

test("a push superseded by a newer push to the same pull request is completed without work; the newest one does it", async () => {
  const { store, deps, lines, record, outcomes } = await setUp();
  await record(
    "push-1",
    "pull_request",
    pullRequestPayload("synchronize", { number: 7, headSha: "c".repeat(40) }),
  );
  await record(
    "push-2",
    "pull_request",
    pullRequestPayload("synchronize", { number: 7, headSha: "d".repeat(40) }),
  );
  assert.equal(await processDeliveries(deps, 1), 1, "one at a time");
  assert.deepEqual(await standing(store, "push-1"), {
    attempts: 1,
    lastError: null,
    availableAt: 0,
    completedAt: NOW,
    error: null,
  });
  assert.equal((await standing(store, "push-2")).attempts, 0);
  assert.deepEqual(
    lines
      .filter((line) => line.msg === "superseded by a newer push to the same pull request")
      .map((line) => [line.level, line.delivery, line.event]),
    [[20, "push-1", "pull_request"]],
  );
  assert.equal(await processDeliveries(deps, 1), 1);
  assert.equal(
    (await standing(store, "push-2")).lastError,
    GITHUB_DOWN,
    "the newest push reads the pull request",
  );
  assert.deepEqual(await outcomes(), { superseded: 1, failed: 1 });
});

test("when loom stops, claimed deliveries not started stay leased to this worker, with no attempt failed", async () => {
  const stopping = new AbortController();
  stopping.abort();
  const { store, deps, record, outcomes } = await setUp({ stopping: stopping.signal });
  await record("star-1", "star", {});
  await record("star-2", "star", {});
  assert.equal(await processDeliveries(deps, 10), 2, "claimed");
  for (const id of ["star-1", "star-2"])
    assert.deepEqual(await standing(store, id), {
      attempts: 1,
      lastError: null,
      availableAt: 0,
      completedAt: null,
      error: null,
    });
  assert.deepEqual(await outcomes(), {});
  // Leased for two minutes, or until this worker's leases are released on the way out.
  assert.deepEqual(await store.claimDeliveries("next", 10, 1_000, NOW + 119_999), []);
  assert.equal((await store.claimDeliveries("next", 10, 1_000, NOW + 120_000)).length, 2);
});

test("a delivery interrupted by loom stopping is handed on, not failed, and the rest are not started", async () => {
  const stopping = new AbortController();
  const { store, deps, lines, record, outcomes } = await setUp({
    stopping: stopping.signal,
    getOctokit: () => {
      stopping.abort();
      return Promise.reject(new Error("This operation was aborted"));
    },
  });
  await record("c1", "issue_comment", comment(31));
  await record("star", "star", {});
  assert.equal(await processDeliveries(deps, 10), 2);
  for (const id of ["c1", "star"]) {
    const { attempts, lastError, completedAt } = await standing(store, id);
    assert.deepEqual([attempts, lastError, completedAt], [1, null, null], id);
  }
  assert.deepEqual(await outcomes(), {});
  assert.deepEqual(
    lines
      .filter((line) => line.level >= 30)
      .map((line) => [line.level, line.msg, line.delivery, line.err?.message]),
    [
      [
        30,
        "delivery interrupted by shutdown; it is handed on with this worker's leases",
        "c1",
        "This operation was aborted",
      ],
    ],
  );
  assert.equal(await store.releaseLeases("w"), 2);
  assert.equal((await store.claimDeliveries("next", 10, 1_000, NOW)).length, 2, "handed on at once");
});

test("between deliveries the worker lets waiting webhooks in", async () => {
  const { deps, lines, record } = await setUp();
  await record("star-1", "star", {});
  await record("star-2", "star", {});
  setImmediate(() => lines.push({ level: 30, msg: "a webhook came in" }));
  await processDeliveries(deps, 10);
  assert.deepEqual(
    lines.map((line) => line.msg),
    ["event loom does not use", "a webhook came in", "event loom does not use"],
  );
});

test("an App without metrics processes, supersedes, fails and gives up deliveries all the same", async () => {
  const { store, deps, lines, record, outcomes } = await setUp({ withMetrics: false });
  await record("given-up", "issue_comment", comment(32));
  for (let attempt = 1; attempt < MAX_INBOX_ATTEMPTS; attempt++) {
    assert.equal((await store.claimDeliveries("old", 10, 0, NOW)).length, 1);
    await store.failDelivery("given-up", GITHUB_DOWN, NOW);
  }
  const push = (headSha: string) => pullRequestPayload("synchronize", { number: 7, headSha });
  await record("push-1", "pull_request", push("c".repeat(40)));
  await record("push-2", "pull_request", push("d".repeat(40)));
  await record("star", "star", {});
  assert.equal(await processDeliveries(deps, 10), 4);
  const errors = await Promise.all(
    ["push-1", "push-2", "star", "given-up"].map(async (id) => {
      const { lastError, completedAt, error } = await standing(store, id);
      return [id, lastError, completedAt, error];
    }),
  );
  assert.deepEqual(errors, [
    ["push-1", null, NOW, null],
    ["push-2", GITHUB_DOWN, null, null],
    ["star", null, NOW, null],
    ["given-up", GITHUB_DOWN, NOW, `gave up after ${MAX_INBOX_ATTEMPTS} attempts: ${GITHUB_DOWN}`],
  ]);
  assert.deepEqual(await outcomes(), {}, "nothing counted");
  assert.deepEqual(
    lines.filter((line) => line.level >= 40).map((line) => [line.msg, line.delivery]),
    [
      ["delivery given up (dead-lettered)", "given-up"],
      ["delivery failed; it waits in the inbox for its next attempt", "push-2"],
    ],
    "only the failed and the given-up delivery are reported",
  );
});
