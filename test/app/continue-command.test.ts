import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { parseContinueRecord } from "../../src/artifacts/continue-record.ts";
import { issueCommentPayload } from "../support/webhook-payloads.ts";
import { completeRun, DIAMOND_PLAN, openPlanPull, startHarness } from "./loom-harness.ts";
import type { Harness } from "./loom-harness.ts";
import { passingResult } from "./stage-results.ts";

/*
 * `/loom continue` through the real app (Probot, the store, the outbox) against a GitHub whose
 * every request is checked against its OpenAPI description: a writer's comment records the
 * instructions for the run (a tag object under refs/loom/continue/<stage branch>) and only then
 * dispatches a continue run with the inputs every caller declares; a reader's is refused.
 */

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

/** The diamond opened and its root `a` passed and merged (b and c started). */
async function openWithMergedRoot(): Promise<Harness> {
  const harness = await startHarness({ planText: DIAMOND_PLAN });
  await completeRun(harness, await openPlanPull(harness), passingResult("a"));
  return harness;
}

const comment = (harness: Harness, login: string, body: string, commentId: number) =>
  harness.receive("issue_comment", issueCommentPayload({ number: 1, body, sender: { login }, commentId }));

/** Paths of the app's requests in order, those of one kind only. */
const paths = (harness: Harness, pattern: RegExp) =>
  harness.gh.requests
    .filter((r) => pattern.test(`${r.method} ${r.path}`))
    .map((r) => `${r.method} ${r.path}`);

test("a writer's /loom continue records the instructions for the run, then dispatches a continue of the stage's last run with the caller's usual inputs", async () => {
  h = await openWithMergedRoot();
  const firstRun = h.fake.dispatches[0]?.runId;
  await comment(h, "alice", '/loom continue a "also handle the empty case"', 801);
  assert.deepEqual(h.fake.reactions, [{ commentId: 801, content: "+1" }]);
  const continued = h.fake.dispatches.at(-1);
  assert.deepEqual(
    {
      stage: continued?.inputs["stage_id"],
      kind: continued?.inputs["kind"],
      attempt: continued?.inputs["attempt"],
      previous: continued?.inputs["previous_run_id"],
    },
    { stage: "a", kind: "continue", attempt: "2", previous: String(firstRun) },
  );
  assert.deepEqual(
    Object.keys(continued?.inputs ?? {}).sort(),
    Object.keys(h.fake.dispatches[0]?.inputs ?? {}).sort(),
    "no input the caller workflow does not declare",
  );
  const [tag] = h.fake.tags;
  assert.deepEqual(parseContinueRecord(tag?.message ?? ""), {
    version: 1,
    key: continued?.inputs["key"],
    stage_id: "a",
    by: "alice",
    from_attempt: 1,
    instructions: "also handle the empty case",
  });
  assert.equal(h.fake.refs.get("refs/loom/continue/loom/pr-1/PLAN-diamond/a"), tag?.sha);
  // Recorded before the run exists that reads it.
  const order = paths(h, /(git\/tags|git\/refs|dispatches)$/);
  assert.deepEqual(order.slice(-3), [
    "POST /repos/acme/widgets/git/tags",
    "POST /repos/acme/widgets/git/refs",
    "POST /repos/acme/widgets/actions/workflows/loom.yml/dispatches",
  ]);
  await h.finish();
  h = undefined;
});

test("a second /loom continue of the stage moves its record to the new instructions", async () => {
  h = await openWithMergedRoot();
  await comment(h, "alice", "/loom continue a first try", 802);
  const first = h.fake.dispatches.at(-1);
  assert.ok(first);
  await completeRun(h, first, passingResult("a", 2, "continue"));
  await comment(h, "alice", "/loom continue a second try", 803);
  const [, second] = h.fake.tags;
  assert.equal(parseContinueRecord(second?.message ?? "")?.instructions, "second try");
  assert.equal(h.fake.refs.get("refs/loom/continue/loom/pr-1/PLAN-diamond/a"), second?.sha);
  assert.equal(h.fake.dispatches.at(-1)?.inputs["kind"], "continue");
  await h.finish();
  h = undefined;
});

test("a reader's /loom continue is refused with a reply: nothing is recorded or dispatched", async () => {
  h = await openWithMergedRoot();
  const before = h.fake.dispatches.length;
  await comment(h, "bob", '/loom continue a "delete the tests"', 804);
  assert.deepEqual(h.fake.reactions, [{ commentId: 804, content: "-1" }]);
  assert.match(
    String(h.fake.comments.at(-1)?.["body"]),
    /did nothing: @bob has read access; loom needs write or above/,
  );
  assert.deepEqual(h.fake.tags, []);
  assert.equal(h.fake.dispatches.length, before);
  await h.finish();
  h = undefined;
});
