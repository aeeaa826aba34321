import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import pino from "pino";
import type { EngineDeps } from "../../app/engine/engine-deps.ts";
import { PARKED_EVENTS } from "../../app/engine/park-events.ts";
import { replyDeadLetter } from "../../app/engine/reply-dead-letter.ts";
import { formatPlanKey } from "../../app/store/store.ts";
import type { InboxDelivery, PlanKey, Store } from "../../app/store/store.ts";
import { formatCheckRunExternalId } from "../../src/status/check-run-external-id.ts";
import { makeDiamond } from "../status/make-plan-state.ts";
import {
  checkRunPayload,
  checkSuitePayload,
  issueCommentPayload,
  pullRequestPayload,
} from "../support/webhook-payloads.ts";
import { openTempStore } from "./loom-harness.ts";
import { REPO_SETTINGS } from "./stored-plan-fixture.ts";

/*
 * A person's command loom gave up on gets a 👎 and a reply where it was given (the comment, the
 * check run, the re-run), through the outbox; anything else given up is only logged. Here: which
 * deliveries are commands, and where each reply goes.
 */

const NOW = Date.UTC(2026, 10, 27, 11, 0, 0);
const plan = (planPath: string): PlanKey => ({
  installationId: 4242,
  owner: "acme",
  repo: "widgets",
  pr: 7,
  planPath,
});
const FIRST = plan("doc/plans/PLAN-demo.md");
const SECOND = plan("doc/plans/PLAN-other.md");
const HEAD = makeDiamond().pr.headSha;
const alice = { login: "alice" };
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Both plans on pull request 7 at HEAD; `inactive`: those that ended. */
async function setUp(inactive: PlanKey[] = []): Promise<{ store: Store; deps: EngineDeps }> {
  const { store, close } = await openTempStore();
  cleanups.push(close);
  for (const key of [FIRST, SECOND])
    await store.commitPlan(key, {
      expectedVersion: 0,
      state: { format: 1, state: makeDiamond(), repo: REPO_SETTINGS },
      active: !inactive.includes(key),
      effects: [],
      timers: [],
      now: NOW,
    });
  const deps = {
    store,
    now: () => NOW,
    workerId: "w",
    log: pino({ level: "silent" }),
    getBotLogin: () => Promise.resolve("loom[bot]"),
    getOctokit: () => Promise.reject(new Error("no GitHub here")),
  } as unknown as EngineDeps;
  return { store, deps };
}

/** Stage `a`'s check run `id` of `plan` at HEAD, pressed or re-run by alice. */
const stageCheckRun = (id: number, plan: PlanKey) => ({
  id,
  name: "loom: stage a",
  externalId: formatCheckRunExternalId(plan.planPath, "a"),
  headSha: HEAD,
  pullNumber: 7,
  sender: alice,
});

const delivery = (id: string, name: string, payload: unknown): InboxDelivery => ({
  id,
  name,
  payload,
  receivedAt: NOW,
  attempts: 10,
  leaseUntil: NOW,
  lastError: "502",
});

/** The replies given up on `id` enqueued so far, by index, with the plan they went to. */
async function repliesOf(store: Store, id: string) {
  const replies = [];
  for (let index = 0; index < 5; index++) {
    for (const key of [FIRST, SECOND]) {
      const effect = await store.getEffect(`${formatPlanKey(key)}|reply:given-up:${id}:${index}`);
      if (effect !== null) replies.push({ plan: effect.planKey.planPath, effect: effect.effect });
    }
  }
  return replies;
}

test("a /loom comment given up gets one 👎 reply on its comment, on the pull request's plan, saying why and what to do", async () => {
  const { store, deps } = await setUp();
  const comment = issueCommentPayload({ number: 7, body: "/loom retry a", sender: alice, commentId: 31 });
  await replyDeadLetter(deps, delivery("d1", "issue_comment", comment), "GitHub answered 502");
  assert.deepEqual(await repliesOf(store, "d1"), [
    {
      plan: FIRST.planPath,
      effect: {
        type: "reply",
        key: "reply:given-up:d1:0",
        source: { kind: "comment", commentId: 31 },
        reaction: "-1",
        body: "loom could not carry out this command and gave up after 10 attempts: GitHub answered 502. Nothing changed; give the command again.",
      },
    },
  ]);
});

test("a comment that is no command, an edited comment, or one on a pull request without plans gets no reply", async () => {
  const { store, deps } = await setUp();
  const chat = issueCommentPayload({ number: 7, body: "looks good", sender: alice });
  await replyDeadLetter(deps, delivery("chat", "issue_comment", chat), "x");
  const edited = issueCommentPayload({ number: 7, body: "/loom retry a", sender: alice, action: "edited" });
  await replyDeadLetter(deps, delivery("edited", "issue_comment", edited), "x");
  const elsewhere = issueCommentPayload({ number: 8, body: "/loom retry a", sender: alice });
  await replyDeadLetter(deps, delivery("elsewhere", "issue_comment", elsewhere), "x");
  const push = pullRequestPayload("synchronize", { number: 7, headSha: HEAD });
  await replyDeadLetter(deps, delivery("push", "pull_request", push), "x");
  for (const id of ["chat", "edited", "elsewhere", "push"])
    assert.deepEqual(await repliesOf(store, id), [], id);
});

test("a check-run button and a check-run re-run get a reply on that check run, on the plan its external id names", async () => {
  const { store, deps } = await setUp();
  const options = stageCheckRun(55, SECOND);
  await replyDeadLetter(
    deps,
    delivery("button", "check_run", checkRunPayload("requested_action", options)),
    "x",
  );
  await replyDeadLetter(deps, delivery("rerun", "check_run", checkRunPayload("rerequested", options)), "x");
  const [button] = await repliesOf(store, "button");
  assert.deepEqual(
    [button?.plan, (button?.effect as { source: unknown }).source],
    [SECOND.planPath, { kind: "check-run-button", checkRunId: 55 }],
  );
  const [rerun] = await repliesOf(store, "rerun");
  assert.deepEqual((rerun?.effect as { source: unknown }).source, {
    kind: "check-run-rerequest",
    checkRunId: 55,
  });
  const foreign = checkRunPayload("requested_action", { ...options, externalId: "ci:lint" });
  await replyDeadLetter(deps, delivery("foreign", "check_run", foreign), "x");
  assert.deepEqual(await repliesOf(store, "foreign"), [], "another App's check run is not loom's to answer");
});

test("a re-run of the pull request's checks gets one reply, whatever the number of plans it asked", async () => {
  const { store, deps } = await setUp();
  const rerun = checkSuitePayload({ id: 66, headSha: HEAD, pullNumbers: [7], sender: alice });
  await replyDeadLetter(deps, delivery("suite", "check_suite", rerun), "x");
  const replies = await repliesOf(store, "suite");
  assert.deepEqual(
    replies.map((reply) => [reply.plan, (reply.effect as { source: unknown }).source]),
    [[FIRST.planPath, { kind: "check-suite-rerequest", checkSuiteId: 66 }]],
  );
});

test("parked events get one reply per command they carried (each source once), none for other events", async () => {
  const { store, deps } = await setUp();
  const command = (commentId: number) => ({
    type: "command.received",
    at: NOW,
    command: "retry",
    stageId: "a",
    sender: "alice",
    source: { kind: "comment", commentId },
  });
  const parked = {
    key: SECOND,
    events: [command(1), { type: "tick", at: NOW }, command(1), command(2)],
  };
  await replyDeadLetter(deps, delivery("parked", PARKED_EVENTS, parked), "the plan kept changing");
  assert.deepEqual(
    (await repliesOf(store, "parked")).map((reply) => [
      reply.plan,
      (reply.effect as { source: unknown }).source,
    ]),
    [
      [SECOND.planPath, { kind: "comment", commentId: 1 }],
      [SECOND.planPath, { kind: "comment", commentId: 2 }],
    ],
  );
});

test("a comment's reply goes to the pull request's running plan, past one that ended", async () => {
  const { store, deps } = await setUp([FIRST]);
  const comment = issueCommentPayload({ number: 7, body: "/loom retry a", sender: alice, commentId: 32 });
  await replyDeadLetter(deps, delivery("d2", "issue_comment", comment), "x");
  assert.deepEqual(
    (await repliesOf(store, "d2")).map((reply) => reply.plan),
    [SECOND.planPath],
  );
});

test("check runs and suites that are no command, or whose plan loom does not have, get no reply", async () => {
  const { store, deps } = await setUp();
  const options = stageCheckRun(56, FIRST);
  const created = { ...checkRunPayload("rerequested", options), action: "created" };
  const unknownPlan = checkRunPayload("requested_action", {
    ...options,
    externalId: formatCheckRunExternalId("doc/plans/PLAN-gone.md", "a"),
  });
  const broken = { ...checkRunPayload("rerequested", options), check_run: { id: "not a number" } };
  const suite = checkSuitePayload({ id: 67, headSha: HEAD, pullNumbers: [7], sender: alice });
  const completed = { ...suite, action: "completed" };
  const brokenSuite = { ...suite, check_suite: null };
  const cases: [string, string, unknown][] = [
    ["created", "check_run", created],
    ["unknown-plan", "check_run", unknownPlan],
    ["broken", "check_run", broken],
    ["completed", "check_suite", completed],
    ["broken-suite", "check_suite", brokenSuite],
  ];
  for (const [id, name, payload] of cases) {
    await replyDeadLetter(deps, delivery(id, name, payload), "x");
    assert.deepEqual(await repliesOf(store, id), [], id);
  }
});
