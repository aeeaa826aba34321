import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import {
  checkRunPayload,
  checkSuitePayload,
  issueCommentPayload,
  pullRequestPayload,
} from "../support/webhook-payloads.ts";
import { failRun, startHarness } from "./loom-harness.ts";
import type { Harness } from "./loom-harness.ts";
import { passingResult } from "./stage-results.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

/** The diamond plan opened, its root stage's run finished with failing acceptance checks. */
async function openWithFailedRoot(): Promise<Harness> {
  const harness = await startHarness();
  harness.fake.roles.set("bob", "read");
  await harness.receive(
    "pull_request",
    pullRequestPayload("opened", { number: 1, headSha: harness.headSha }),
  );
  const [dispatch] = harness.fake.dispatches;
  assert.ok(dispatch);
  await failRun(harness, dispatch, passingResult("a"));
  assert.equal(harness.fake.dispatches.length, 1, "a failed acceptance check is not retried on its own");
  return harness;
}

const dispatchesOf = (harness: Harness, stageId: string) =>
  harness.fake.dispatches.filter((d) => d.inputs["stage_id"] === stageId);

test("/loom retry from someone with read access changes nothing but gets a reply", async () => {
  h = await openWithFailedRoot();
  await h.receive(
    "issue_comment",
    issueCommentPayload({ number: 1, body: "/loom retry a", sender: { login: "bob" }, commentId: 501 }),
  );
  assert.equal(dispatchesOf(h, "a").length, 1);
  assert.deepEqual(h.fake.reactions, [{ commentId: 501, content: "-1" }]);
  const reply = h.fake.comments.at(-1)?.["body"];
  assert.match(String(reply), /did nothing: @bob has read access; loom needs write or above/);
  await h.finish();
  h = undefined;
});

test("/loom retry from a writer dispatches the stage once, even when the delivery comes twice", async () => {
  h = await openWithFailedRoot();
  const comment = issueCommentPayload({
    number: 1,
    body: "/loom retry a",
    sender: { login: "alice" },
    commentId: 502,
  });
  await h.receive("issue_comment", comment, "retry-delivery");
  await h.receive("issue_comment", comment, "retry-delivery");
  assert.deepEqual(
    dispatchesOf(h, "a").map((d) => d.inputs["attempt"]),
    ["1", "2"],
  );
  assert.deepEqual(h.fake.reactions, [{ commentId: 502, content: "+1" }]);
  await h.finish();
  h = undefined;
});

test("an unknown stage or command gets a short reply listing what is valid, and nothing runs", async () => {
  h = await openWithFailedRoot();
  await h.receive(
    "issue_comment",
    issueCommentPayload({
      number: 1,
      body: "/loom retry zzz\n/loom frob",
      sender: { login: "alice" },
      commentId: 503,
    }),
  );
  assert.equal(h.fake.dispatches.length, 1);
  const reply = String(h.fake.comments.at(-1)?.["body"]);
  assert.match(reply, /no stage `zzz`/);
  assert.match(reply, /`\/loom frob` is not a loom command/);
  assert.match(reply, /`a`, `b`, `c`, `d`/);
  await h.finish();
  h = undefined;
});

test("comment edits and comments by loom itself are ignored", async () => {
  h = await openWithFailedRoot();
  const requests = h.gh.requests.length;
  await h.receive(
    "issue_comment",
    issueCommentPayload({ number: 1, body: "/loom retry a", sender: { login: "alice" }, action: "edited" }),
  );
  await h.receive(
    "issue_comment",
    issueCommentPayload({
      number: 1,
      body: "/loom retry a",
      sender: { login: "loom-app[bot]", type: "Bot" },
    }),
  );
  assert.equal(h.gh.requests.length, requests, "not even a permission lookup");
  assert.equal(h.fake.dispatches.length, 1);
  await h.finish();
  h = undefined;
});

test("Re-run on a stage's check run retries it, for a writer only", async () => {
  h = await openWithFailedRoot();
  const check = h.fake.checkRuns.findLast((r) => r["name"] === "loom: a");
  assert.ok(check);
  const rerun = (login: string) =>
    checkRunPayload("rerequested", {
      id: Number(check["id"]),
      name: "loom: a",
      externalId: String(check["external_id"]),
      headSha: h?.headSha ?? "",
      pullNumber: 1,
      sender: { login },
    });
  await h.receive("check_run", rerun("bob"));
  assert.equal(dispatchesOf(h, "a").length, 1);
  await h.receive("check_run", rerun("alice"));
  assert.deepEqual(
    dispatchesOf(h, "a").map((d) => d.inputs["attempt"]),
    ["1", "2"],
  );
  await h.finish();
  h = undefined;
});

test("Re-run failed checks on the pull request retries its failed stages, for a writer only; a reader gets a reply", async () => {
  h = await openWithFailedRoot();
  // The suite of the head loom shows its plan on (its plan-file rename moved the head).
  const head = h.fake.refs.get("feature/plan") ?? "";
  const rerun = (login: string, id: number, pullNumbers: number[]) =>
    checkSuitePayload({ id, headSha: head, pullNumbers, sender: { login } });
  await h.receive("check_suite", rerun("bob", 81, [1]));
  assert.equal(dispatchesOf(h, "a").length, 1, "a reader's re-run changes nothing");
  assert.match(
    String(h.fake.comments.at(-1)?.["body"]),
    /loom did nothing: @bob has read access; loom needs write or above\./,
  );
  await h.receive("check_suite", rerun("alice", 82, [1]));
  assert.deepEqual(
    dispatchesOf(h, "a").map((d) => d.inputs["attempt"]),
    ["1", "2"],
  );
  await h.finish();
  h = undefined;
});

test("a re-run of a suite GitHub names no pull request for (a fork's) finds the plan by its head; an older head's suite changes nothing", async () => {
  h = await openWithFailedRoot();
  const head = h.fake.refs.get("feature/plan") ?? "";
  await h.receive(
    "check_suite",
    checkSuitePayload({ id: 83, headSha: h.headSha, pullNumbers: [], sender: { login: "alice" } }),
  );
  assert.equal(dispatchesOf(h, "a").length, 1, "the suite of a head the plan moved past shows no plan now");
  await h.receive(
    "check_suite",
    checkSuitePayload({ id: 84, headSha: head, pullNumbers: [], sender: { login: "alice" } }),
  );
  assert.equal(dispatchesOf(h, "a").length, 2);
  await h.finish();
  h = undefined;
});

test("/loom help is answered with the commands and a 👀; a command loom does not know gets them with a 👎 and what was wrong", async () => {
  h = await openWithFailedRoot();
  const say = (body: string, commentId: number) =>
    h?.receive(
      "issue_comment",
      issueCommentPayload({ number: 1, body, sender: { login: "alice" }, commentId }),
    );
  await say("/loom help", 601);
  await say("/loom frobnicate a", 602);
  assert.deepEqual(h.fake.reactions, [
    { commentId: 601, content: "eyes" },
    { commentId: 602, content: "-1" },
  ]);
  const [help, unknown] = h.fake.comments.slice(-2).map((c) => String(c["body"]));
  assert.match(help ?? "", /`\/loom retry <stage> \[--only\]`/);
  assert.doesNotMatch(help ?? "", /frobnicate/);
  assert.doesNotMatch(help ?? "", /could not use/, "help asked for is no problem");
  assert.match(unknown ?? "", /frobnicate/);
  assert.match(unknown ?? "", /`\/loom retry <stage> \[--only\]`/);
  await say("/loom frob\n/loom zap", 603);
  assert.match(
    String(h.fake.comments.at(-1)?.["body"]),
    /\nloom could not use that: `\/loom frob` is not a loom command\. `\/loom zap` is not a loom command\.\n/,
    "each problem said, one after the other",
  );
  await h.finish();
  h = undefined;
});

test("refused comments get a 👎 each but the reason at most once per person and pull request an hour", async () => {
  let now = Date.parse("2026-11-26T10:00:00Z");
  const harness = await startHarness({ clock: () => (now += 1000) });
  h = harness;
  harness.fake.roles.set("bob", "read");
  harness.fake.roles.set("carol", "read");
  await harness.receive(
    "pull_request",
    pullRequestPayload("opened", { number: 1, headSha: harness.headSha }),
  );
  const refusalsTo = (login: string) =>
    harness.fake.comments.filter((c) => String(c["body"]).includes(`did nothing: @${login} has read access`));
  const comment = (login: string, commentId: number) =>
    harness.receive(
      "issue_comment",
      issueCommentPayload({ number: 1, body: "/loom retry a", sender: { login }, commentId }),
    );

  for (let id = 601; id <= 605; id++) await comment("bob", id);
  await comment("carol", 606);
  assert.equal(refusalsTo("bob").length, 1, "five refused comments, one written reason");
  assert.equal(refusalsTo("carol").length, 1, "someone else's refusal is not silenced by bob's");
  assert.deepEqual(
    harness.fake.reactions.map((r) => r.commentId),
    [601, 602, 603, 604, 605, 606],
    "every refused comment still gets its 👎",
  );
  assert.equal(dispatchesOf(harness, "a").length, 1, "no refused command changed anything");

  // (An hour on, stage a's silent session is hung and retried: its dispatches are not counted here.)
  now += 60 * 60 * 1000;
  await comment("bob", 607);
  assert.equal(refusalsTo("bob").length, 2, "an hour later the reason is written again");
  await harness.finish();
  h = undefined;
});

test("/loom status from a writer gets a 👍 and a reply with the plan's status, and the status comment is written again", async () => {
  h = await openWithFailedRoot();
  const updates = () =>
    h?.gh.requests.filter((r) => r.method === "PATCH" && r.path.includes("/issues/comments/")).length ?? 0;
  const before = updates();
  await h.receive(
    "issue_comment",
    issueCommentPayload({ number: 1, body: "/loom status", sender: { login: "alice" }, commentId: 701 }),
  );
  assert.deepEqual(h.fake.reactions, [{ commentId: 701, content: "+1" }]);
  const reply = String(h.fake.comments.at(-1)?.["body"]);
  assert.match(reply, /PLAN-diamond/);
  assert.match(reply, /\ba\b/);
  assert.ok(updates() > before, "the status comment was brought up to date");
  assert.equal(h.fake.dispatches.length, 1, "nothing runs");
  await h.finish();
  h = undefined;
});

test("comment deliveries that reached the inbox another way (an edit, an issue, no command) cost no request", async () => {
  h = await openWithFailedRoot();
  const requests = h.gh.requests.length;
  const cases = [
    issueCommentPayload({ number: 1, body: "/loom retry a", sender: { login: "alice" }, action: "edited" }),
    {
      ...issueCommentPayload({ number: 1, body: "/loom retry a", sender: { login: "alice" } }),
      issue: { number: 1 },
    },
    issueCommentPayload({ number: 1, body: "thanks loom, looks good", sender: { login: "alice" } }),
    issueCommentPayload({ number: 2, body: "/loom retry a", sender: { login: "alice" } }),
  ];
  // Recorded straight into the inbox, as a loom before this one or a redelivery might have.
  for (const [i, payload] of cases.entries())
    await h.store.recordDelivery({
      id: `stray-${i}`,
      name: "issue_comment",
      payload,
      receivedAt: Date.now(),
    });
  await h.engine.drain();
  assert.equal(h.gh.requests.length, requests, "not even a permission lookup");
  assert.equal(h.fake.dispatches.length, 1);
  for (const [i] of cases.entries())
    assert.notEqual((await h.store.getDelivery(`stray-${i}`))?.completedAt, null);
  await h.finish();
  h = undefined;
});
