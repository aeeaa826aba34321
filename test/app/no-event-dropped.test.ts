import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { MAX_CAS_ATTEMPTS } from "../../app/engine/apply-events.ts";
import {
  computeInboxBackoff,
  INBOX_BACKOFF_CAP_MS,
  MAX_INBOX_ATTEMPTS,
} from "../../app/engine/inbox-backoff.ts";
import { createMetrics } from "../../app/metrics/create-metrics.ts";
import type { CommitPlanInput, Store } from "../../app/store/store.ts";
import {
  checkSuitePayload,
  issueCommentPayload,
  pullRequestPayload,
  workflowRunPayload,
} from "../support/webhook-payloads.ts";
import { formatCheckRunExternalId } from "../../src/status/check-run-external-id.ts";
import { openTempStore, PLAN_PATH, pressButton, startHarness } from "./loom-harness.ts";
import type { Harness } from "./loom-harness.ts";
import { passingResult } from "./stage-results.ts";

/*
 * Issue 12, item 1: every event and delivery either takes effect or stays in the inbox with its
 * attempts, last error and next attempt time; only after MAX_INBOX_ATTEMPTS is it given up, visibly.
 * The clock stands still unless a test moves it, so "the next attempt is due" is explicit.
 */

let h: Harness | undefined;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
  for (const close of closers.splice(0)) await close();
});

type Clock = { now: () => number; advance(ms: number): void };
function makeClock(): Clock {
  let time = Date.UTC(2026, 10, 22, 0, 0, 0);
  return { now: () => time, advance: (ms) => (time += ms) };
}

/**
 * A store whose next `losses` plan commits lose the compare-and-swap, as if another replica had
 * written first each time; the inbox ids loom parks work under are recorded.
 */
type RacingStore = Store & {
  lose(count: number, when?: (input: CommitPlanInput) => boolean): void;
  lost: number;
  parked: string[];
};
async function openRacingStore(): Promise<RacingStore> {
  const { store: inner, close } = await openTempStore();
  closers.push(close);
  let losses = 0;
  let losing: (input: CommitPlanInput) => boolean = () => true;
  const racing: RacingStore = Object.assign(Object.create(null) as object, inner, {
    lost: 0,
    parked: [] as string[],
    lose(count: number, when?: (input: CommitPlanInput) => boolean) {
      losses = count;
      losing = when ?? (() => true);
    },
    commitPlan: (...args: Parameters<Store["commitPlan"]>) => {
      if (losses > 0 && losing(args[1])) {
        losses -= 1;
        racing.lost += 1;
        return Promise.resolve({ ok: false as const, reason: "conflict" as const });
      }
      return inner.commitPlan(...args);
    },
    recordDelivery: (delivery: Parameters<Store["recordDelivery"]>[0]) => {
      if (delivery.name === "loom.events") racing.parked.push(delivery.id);
      return inner.recordDelivery(delivery);
    },
  });
  return racing;
}

/** The App on a racing store and a clock that stands still until a test moves it. */
async function startRacing(): Promise<{ clock: Clock; store: RacingStore; harness: Harness }> {
  const clock = makeClock();
  const store = await openRacingStore();
  return { clock, store, harness: await startHarness({ store, clock: clock.now }) };
}

const dispatchesOf = (harness: Harness, stageId: string) =>
  harness.fake.dispatches.filter((d) => d.inputs["stage_id"] === stageId);

/**
 * The diamond plan opened and its root stage `a` running. Its heartbeats are checked only after a
 * day, so the half hour a test's clock moves never makes the session hung.
 */
async function openAndStartRoot(harness: Harness) {
  harness.fake.files.set("main:.github/loom.yml", "heartbeat_timeout_seconds: 86400\n");
  await harness.receive(
    "pull_request",
    pullRequestPayload("opened", { number: 1, headSha: harness.headSha }),
  );
  const [dispatch] = dispatchesOf(harness, "a");
  assert.ok(dispatch);
  const title = `loom ${dispatch.inputs["key"]}`;
  await harness.receive(
    "workflow_run",
    workflowRunPayload("in_progress", { id: dispatch.runId, displayTitle: title }),
  );
  return {
    /** The run ends (with a passing `loom-result` when `withResult`): its completed webhook. */
    finish: (withResult = true) => {
      if (withResult) harness.fake.finishRun(dispatch.runId, "success", passingResult("a"));
      else
        harness.fake.runs.set(dispatch.runId, { status: "completed", conclusion: "success", result: null });
      return workflowRunPayload("completed", { id: dispatch.runId, displayTitle: title });
    },
  };
}

test("a run.finished that loses the compare-and-swap race 50 times in a row still lands", async () => {
  const { clock, store, harness } = await startRacing();
  h = harness;
  const completed = (await openAndStartRoot(h)).finish();

  store.lose(50);
  await h.receive("workflow_run", completed, "run-a-completed");
  assert.equal(store.lost, MAX_CAS_ATTEMPTS, "the webhook's own attempts");
  assert.equal(h.fake.merges.length, 0, "not applied yet");
  const [parkedId] = store.parked;
  assert.ok(parkedId, "the run.finished was parked in the inbox, not dropped");
  const parked = await store.getDelivery(parkedId);
  assert.equal(parked?.completedAt, null);
  assert.match(parked?.lastError ?? "", /changed 20 times in a row/);
  assert.equal(parked?.availableAt, clock.now() + computeInboxBackoff(1));
  assert.equal((await store.getDelivery("run-a-completed"))?.error, null, "the webhook itself is done");

  clock.advance(computeInboxBackoff(1));
  await h.engine.drain();
  assert.equal(store.lost, 2 * MAX_CAS_ATTEMPTS);
  const retried = await store.getDelivery(parkedId);
  assert.deepEqual(
    [retried?.attempts, retried?.completedAt, retried?.availableAt],
    [1, null, clock.now() + computeInboxBackoff(1)],
    "lost again: it waits for its next attempt",
  );

  clock.advance(computeInboxBackoff(1));
  await h.engine.drain();
  assert.equal(store.lost, 50);
  assert.deepEqual(
    h.fake.merges.map((m) => m.head),
    ["loom/pr-1/PLAN-diamond/a"],
    "the stage was merged once the event landed",
  );
  assert.deepEqual(
    [...dispatchesOf(h, "b"), ...dispatchesOf(h, "c")].map((d) => d.inputs["stage_id"]).sort(),
    ["b", "c"],
  );
  const landed = await store.getDelivery(parkedId);
  assert.deepEqual([landed?.attempts, landed?.error], [2, null]);
  assert.notEqual(landed?.completedAt, null);
  assert.deepEqual(store.parked, [parkedId], "losing again kept the one parked entry: none parked twice");
  await h.finish();
  h = undefined;
});

test("a delivery whose GitHub calls fail three times lands on the fourth", async () => {
  const clock = makeClock();
  h = await startHarness({ clock: clock.now });
  const completed = (await openAndStartRoot(h)).finish();
  // GitHub answers 502 to the run's artifact list three times (no retry plugin in the test Octokit).
  h.fake.faults.push({ method: "GET", path: /\/actions\/runs\/\d+\/artifacts$/, status: 502, times: 3 });

  await h.receive("workflow_run", completed, "flaky");
  for (let attempt = 1; attempt <= 3; attempt++) {
    const waiting = await h.store.getDelivery("flaky");
    assert.equal(waiting?.attempts, attempt);
    assert.equal(waiting?.completedAt, null, `still in the inbox after failed attempt ${attempt}`);
    assert.match(waiting?.lastError ?? "", /502|Server Error/);
    assert.equal(waiting?.availableAt, clock.now() + computeInboxBackoff(attempt));
    assert.equal(h.fake.merges.length, 0);
    clock.advance(computeInboxBackoff(attempt));
    await h.engine.drain();
  }
  const done = await h.store.getDelivery("flaky");
  assert.deepEqual([done?.attempts, done?.error], [4, null]);
  assert.notEqual(done?.completedAt, null);
  assert.deepEqual(
    h.fake.merges.map((m) => m.head),
    ["loom/pr-1/PLAN-diamond/a"],
  );
  await h.finish();
  h = undefined;
});

test("a delivery that always fails is given up with a visible reason and a count, and the inbox keeps flowing", async () => {
  const clock = makeClock();
  const metrics = createMetrics({
    store: { countBacklog: () => Promise.resolve({ deliveries: 0, effects: 0, timers: 0 }) },
    defaultMetrics: false,
  });
  h = await startHarness({ clock: clock.now, metrics });
  // The run's artifacts can never be listed (the test does not need its result).
  const completed = (await openAndStartRoot(h)).finish(false);
  h.fake.faults.push({
    method: "GET",
    path: /\/actions\/runs\/\d+\/artifacts$/,
    status: 502,
    times: Infinity,
  });
  await h.receive("workflow_run", completed, "doomed");
  // Meanwhile alice's command is carried out: the parked delivery holds nothing back.
  await h.receive(
    "issue_comment",
    issueCommentPayload({ number: 1, body: "/loom status", sender: { login: "alice" }, commentId: 902 }),
    "fine",
  );
  assert.notEqual((await h.store.getDelivery("fine"))?.completedAt, null);
  assert.equal((await h.store.getDelivery("doomed"))?.completedAt, null);

  let waited = 0;
  for (let attempt = 1; attempt < MAX_INBOX_ATTEMPTS; attempt++) {
    const wait = computeInboxBackoff(attempt);
    assert.equal((await h.store.getDelivery("doomed"))?.availableAt, clock.now() + wait);
    waited += wait;
    clock.advance(wait);
    await h.engine.drain();
  }
  const given = await h.store.getDelivery("doomed");
  assert.equal(given?.attempts, MAX_INBOX_ATTEMPTS);
  assert.notEqual(given?.completedAt, null, "given up: never claimed again");
  assert.match(given?.error ?? "", /^gave up after 10 attempts: .*(502|Server Error)/);
  assert.ok(waited <= 30 * 60_000, `given up after ${waited / 60_000} minutes of backoff`);
  const counted = (await metrics.deliveriesProcessed.get()).values;
  assert.deepEqual(
    counted.filter((v) => v.labels.outcome !== "processed").map((v) => [v.labels.outcome, v.value]),
    [
      ["failed", MAX_INBOX_ATTEMPTS - 1],
      ["given_up", 1],
    ],
  );

  clock.advance(INBOX_BACKOFF_CAP_MS);
  const reads = h.gh.requests.filter((r) => r.path.endsWith("/artifacts")).length;
  await h.engine.drain();
  assert.equal(
    h.gh.requests.filter((r) => r.path.endsWith("/artifacts")).length,
    reads,
    "a given-up delivery is not tried again",
  );
  h.fake.faults.length = 0;
  await h.finish();
  h = undefined;
});

test("a command that can never be applied is given up with a reply on the pull request saying so", async () => {
  const { clock, store, harness } = await startRacing();
  h = harness;
  await openAndStartRoot(h);
  // Another writer wins every commit that would carry out the cancel, for as long as loom tries.
  store.lose(Infinity, (input) =>
    input.effects.some((e) => (e.effect as { type: string }).type === "cancelRun"),
  );
  await h.receive(
    "issue_comment",
    issueCommentPayload({ number: 1, body: "/loom cancel a", sender: { login: "alice" }, commentId: 903 }),
  );
  const [parkedId] = store.parked;
  assert.ok(parkedId);
  for (let attempt = 0; attempt < MAX_INBOX_ATTEMPTS; attempt++) {
    clock.advance(INBOX_BACKOFF_CAP_MS);
    await h.engine.drain();
  }
  assert.equal(store.lost, (MAX_INBOX_ATTEMPTS + 1) * MAX_CAS_ATTEMPTS);
  assert.deepEqual(h.fake.cancelled, [], "nothing was cancelled");
  assert.match(
    (await store.getDelivery(parkedId))?.error ?? "",
    /^gave up after 10 attempts: the plan kept changing/,
  );
  assert.deepEqual(
    h.fake.reactions.filter((r) => r.commentId === 903),
    [{ commentId: 903, content: "-1" }],
  );
  const reply = h.fake.comments
    .map((c) => String(c["body"]))
    .find((body) => body.includes("could not carry out"));
  assert.match(
    reply ?? "",
    /gave up after 10 attempts: the plan kept changing.*Nothing changed; give the command again/s,
  );
  await h.finish();
  h = undefined;
});

/** Drains until every inbox attempt of a delivery that always fails is spent. */
async function spendEveryAttempt(harness: Harness, clock: Clock): Promise<void> {
  for (let attempt = 1; attempt < MAX_INBOX_ATTEMPTS; attempt++) {
    clock.advance(INBOX_BACKOFF_CAP_MS);
    await harness.engine.drain();
  }
}

/** GitHub answers 502 to every read of alice's permission, `times` times. */
function failAlicesPermission(harness: Harness, times: number): void {
  harness.fake.faults.push({
    method: "GET",
    path: /\/collaborators\/alice\/permission$/,
    status: 502,
    times,
  });
}

/** The diamond's root running on a standing clock, and GitHub never saying who alice is. */
async function startWithAliceUnknown(): Promise<{ clock: Clock; harness: Harness }> {
  const clock = makeClock();
  const harness = await startHarness({ clock: clock.now });
  await openAndStartRoot(harness);
  failAlicesPermission(harness, Infinity);
  return { clock, harness };
}

const givenUpReplies = (harness: Harness) =>
  harness.fake.comments.map((c) => String(c["body"])).filter((body) => body.includes("could not carry out"));

test("a /loom comment whose delivery always fails is given up with a 👎 and a reply, one per command", async () => {
  // GitHub never answers who alice is, so neither comment can be judged.
  const { clock, harness } = await startWithAliceUnknown();
  h = harness;
  const comment = (body: string, commentId: number) =>
    issueCommentPayload({ number: 1, body, sender: { login: "alice" }, commentId });
  await h.receive("issue_comment", comment("/loom cancel a", 904), "cancel-doomed");
  await h.receive("issue_comment", comment("/loom cancel a", 905), "cancel-doomed-2");
  await spendEveryAttempt(h, clock);

  assert.match((await h.store.getDelivery("cancel-doomed"))?.error ?? "", /^gave up after 10 attempts/);
  assert.deepEqual(h.fake.cancelled, [], "nothing was cancelled");
  assert.deepEqual(
    h.fake.reactions.filter((r) => r.content === "-1"),
    [{ commentId: 904 }, { commentId: 905 }].map((r) => ({ ...r, content: "-1" })),
  );
  const replies = givenUpReplies(h);
  assert.equal(replies.length, 2, "one reply per command given up");
  assert.match(
    replies[0] ?? "",
    /could not carry out this command and gave up after 10 attempts: .*(502|Server Error).*Nothing changed; give the command again/s,
  );
  await h.finish();
  h = undefined;
});

test("a writer's plan opened while GitHub fails to say who they are waits and opens; it is never sent for approval", async () => {
  const clock = makeClock();
  h = await startHarness({ clock: clock.now });
  failAlicesPermission(h, 2);
  await h.receive(
    "pull_request",
    pullRequestPayload("opened", { number: 1, headSha: h.headSha, author: { login: "alice" } }),
    "opened",
  );
  assert.equal((await h.store.getDelivery("opened"))?.completedAt, null, "waiting in the inbox");
  assert.deepEqual(h.fake.checkRuns, [], "no approval asked, nothing shown yet");
  for (let attempt = 1; attempt <= 2; attempt++) {
    clock.advance(computeInboxBackoff(attempt));
    await h.engine.drain();
  }
  assert.deepEqual(dispatchesOf(h, "a").length, 1, "the plan opened on the third attempt");
  assert.ok(
    h.fake.checkRuns.every((run) => !JSON.stringify(run).includes("Approve")),
    "no Approve button: alice writes",
  );
  await h.finish();
  h = undefined;
});

test("a check-run button whose delivery always fails is given up with a reply on the pull request", async () => {
  const { clock, harness } = await startWithAliceUnknown();
  h = harness;
  const run = h.fake.checkRuns.find((r) => r["external_id"] === formatCheckRunExternalId(PLAN_PATH, "a"));
  assert.ok(run, "stage a's check run");
  await h.receive("check_run", pressButton(h, run, "cancel"), "button-doomed");
  await spendEveryAttempt(h, clock);
  assert.match((await h.store.getDelivery("button-doomed"))?.error ?? "", /^gave up after 10 attempts/);
  assert.deepEqual(h.fake.cancelled, []);
  assert.equal(givenUpReplies(h).length, 1, "the button's press is answered on the pull request");
  assert.deepEqual(h.fake.reactions, [], "a button has no comment to react to");
  await h.finish();
  h = undefined;
});

test("a re-run of the pull request's checks whose delivery always fails is given up with one reply", async () => {
  const { clock, harness } = await startWithAliceUnknown();
  h = harness;
  // The suite of the head loom shows its plan on (its plan-file rename moved the head).
  const head = h.fake.refs.get("feature/plan") ?? "";
  const rerun = checkSuitePayload({ id: 61, headSha: head, pullNumbers: [1], sender: { login: "alice" } });
  await h.receive("check_suite", rerun, "rerun-doomed");
  await spendEveryAttempt(h, clock);
  assert.match((await h.store.getDelivery("rerun-doomed"))?.error ?? "", /^gave up after 10 attempts/);
  assert.equal(givenUpReplies(h).length, 1);
  assert.deepEqual(h.fake.reactions, [], "a re-run has no comment to react to");
  await h.finish();
  h = undefined;
});

test("a fork plan's Approve button whose delivery always fails is answered too, though GitHub names no pull request on its check run", async () => {
  const clock = makeClock();
  h = await startHarness({ clock: clock.now });
  const fork = { author: { login: "mallory" }, headRepo: "mallory/widgets" };
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha, ...fork }));
  const check = h.fake.checkRuns.find((r) => r["external_id"] === formatCheckRunExternalId(PLAN_PATH, null));
  assert.ok(check, "the plan's check run, with its Approve button");
  failAlicesPermission(h, Infinity);
  const press = pressButton(h, check, "approve");
  (press["check_run"] as { pull_requests: unknown[] }).pull_requests = [];
  await h.receive("check_run", press, "approve-doomed");
  await spendEveryAttempt(h, clock);
  assert.match((await h.store.getDelivery("approve-doomed"))?.error ?? "", /^gave up after 10 attempts/);
  assert.deepEqual(h.fake.dispatches, [], "not approved");
  assert.equal(givenUpReplies(h).length, 1);
  await h.finish();
  h = undefined;
});

test("parked events given up get one reply per command given, and none for events no person gave", async () => {
  const { clock, store, harness } = await startRacing();
  h = harness;
  const completed = (await openAndStartRoot(h)).finish();
  // Every commit that would cancel a, or merge it, loses: both stay parked until given up.
  store.lose(Infinity, (input) =>
    input.effects.some((e) => ["cancelRun", "mergeBranch"].includes((e.effect as { type: string }).type)),
  );
  await h.receive(
    "issue_comment",
    issueCommentPayload({
      number: 1,
      body: "/loom cancel a\n/loom status",
      sender: { login: "alice" },
      commentId: 908,
    }),
  );
  await h.receive("workflow_run", completed, "run-a-completed");
  assert.equal(store.parked.length, 2, "the comment's two commands parked together, and the run's end");
  for (let attempt = 0; attempt < MAX_INBOX_ATTEMPTS; attempt++) {
    clock.advance(INBOX_BACKOFF_CAP_MS);
    await h.engine.drain();
  }
  for (const id of store.parked) {
    assert.match((await store.getDelivery(id))?.error ?? "", /^gave up after 10 attempts/);
  }
  assert.equal(
    givenUpReplies(h).length,
    1,
    "one reply to the one comment; the run's end has nobody to answer",
  );
  await h.finish();
  h = undefined;
});

test("work parked by one App instance is resumed by another (a restart or a new replica)", async () => {
  const clock = makeClock();
  h = await startHarness({ clock: clock.now });
  const completed = (await openAndStartRoot(h)).finish();
  h.fake.faults.push({ method: "GET", path: /\/actions\/runs\/\d+\/artifacts$/, status: 502, times: 1 });
  await h.receive("workflow_run", completed, "parked-here");
  assert.equal((await h.store.getDelivery("parked-here"))?.completedAt, null);

  // This instance is gone; a new one on the same store picks the delivery up once it is due.
  const replica = await h.addInstance(h.store, "replica-b");
  await replica.engine.drain();
  assert.equal(h.fake.merges.length, 0, "not before its next attempt is due");
  clock.advance(computeInboxBackoff(1));
  await replica.engine.drain();
  assert.notEqual((await h.store.getDelivery("parked-here"))?.completedAt, null);
  assert.deepEqual(
    h.fake.merges.map((m) => m.head),
    ["loom/pr-1/PLAN-diamond/a"],
  );
  await h.finish();
  h = undefined;
});

test("a delivery's waits between its 10 attempts grow from 5 s and stay capped at 5 minutes", () => {
  const waits = Array.from({ length: MAX_INBOX_ATTEMPTS - 1 }, (_, i) => computeInboxBackoff(i + 1) / 1000);
  assert.deepEqual(waits, [5, 10, 20, 40, 80, 160, 300, 300, 300]);
  assert.equal(computeInboxBackoff(1000), INBOX_BACKOFF_CAP_MS, "a huge attempt count is still capped");
});

test("a plan whose opening loses the race 20 times is parked with its repository settings and opens when it lands", async () => {
  const { clock, store, harness } = await startRacing();
  h = harness;
  h.fake.files.set("main:.github/loom.yml", "heartbeat_timeout_seconds: 86400\n");
  store.lose(MAX_CAS_ATTEMPTS);
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));
  assert.equal(store.parked.length, 1, "the plan.opened was parked");
  assert.equal(dispatchesOf(h, "a").length, 0);

  clock.advance(computeInboxBackoff(1));
  await h.engine.drain();
  // A new plan has no stored settings yet: the parked entry must carry the pull request's.
  assert.equal(dispatchesOf(h, "a").length, 1, "the plan opened from its parked events");
  const [parkedId] = store.parked;
  assert.notEqual((await store.getDelivery(parkedId ?? ""))?.completedAt, null);
  await h.finish();
  h = undefined;
});

test("a command's reply decided by the App alone, whose commit loses the race 20 times, is parked with it and posted when it lands", async () => {
  const { clock, store, harness } = await startRacing();
  h = harness;
  await openAndStartRoot(h);
  // Not a command loom knows: the App answers with the help, an effect with no event behind it.
  const replies = () => h?.fake.comments.filter((c) => String(c["body"]).includes("frobnicate")) ?? [];

  store.lose(MAX_CAS_ATTEMPTS);
  await h.receive(
    "issue_comment",
    issueCommentPayload({
      number: 1,
      body: "/loom frobnicate a",
      sender: { login: "alice" },
      commentId: 951,
    }),
  );
  assert.equal(store.parked.length, 1, "the reply was parked");
  assert.equal(replies().length, 0);

  clock.advance(computeInboxBackoff(1));
  await h.engine.drain();
  assert.equal(replies().length, 1, "the parked reply was posted once it landed");
  await h.finish();
  h = undefined;
});
