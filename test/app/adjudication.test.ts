import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { parseAmendRecord } from "../../src/artifacts/amend-record.ts";
import { DIAMOND_PLAN, completeRun, failRun, pressButton } from "./loom-harness.ts";
import type { Harness } from "./loom-harness.ts";
import { openClockedPlan, type ClockedPlan } from "./open-clocked-plan.ts";
import { checkedSha, passingResult } from "./stage-results.ts";

/*
 * A disputed criterion through the real app (Probot, the store, the outbox) against a GitHub whose
 * every request is checked against its OpenAPI description: the stage waits with the dispute on its
 * check run; a reader's `/loom amend` changes nothing; a writer's records the amendment where the
 * run job reads it and dispatches a check run; Reject dispute blocks the stage.
 */

const CHECKED = checkedSha("a");

let h: Harness | undefined;
let opened: ClockedPlan | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

/** The diamond opened; a's session disputed its criterion `npm test`, which failed. */
async function openWithDispute(): Promise<Harness> {
  opened = await openClockedPlan(DIAMOND_PLAN);
  await failRun(opened.harness, opened.dispatch, {
    ...passingResult("a"),
    dispute: {
      criterion_index: 0,
      criterion: "npm test",
      reason: "the suite needs a database this repo lacks",
    },
  });
  return opened.harness;
}

/** A comment dated after the app's clock (the harness is the one `opened` holds). */
function comment(_harness: Harness, login: string, body: string, commentId: number) {
  assert.ok(opened, "the plan is open");
  return opened.comment(login, body, commentId);
}

const checkRunOf = (harness: Harness, name: string) =>
  harness.fake.checkRuns.findLast((r) => r["name"] === name);

test("a disputed criterion holds the stage with the dispute and a Reject dispute button on its check run", async () => {
  h = await openWithDispute();
  const check = checkRunOf(h, "loom: a");
  assert.equal(check?.["conclusion"], "action_required");
  assert.deepEqual(
    (check?.["actions"] as { identifier: string }[]).map((a) => a.identifier),
    ["reject", "retry", "skip"],
  );
  const summary = (check?.["output"] as { summary: string }).summary;
  assert.ok(summary.includes("**The session disputes acceptance criterion 1** `npm test`"), summary);
  assert.ok(summary.includes("the suite needs a database this repo lacks"), summary);
  assert.equal(h.fake.dispatches.length, 1);
  await h.finish();
});

test("a reader's /loom amend changes nothing; a writer's records the amendment on the checked commit and dispatches a check run", async () => {
  h = await openWithDispute();
  await comment(h, "bob", "/loom amend a 1 npm test -- --skip-db", 501);
  assert.equal(h.fake.dispatches.length, 1);
  assert.deepEqual(h.fake.tags, []);
  await comment(h, "alice", "/loom amend a 1 npm test -- --skip-db", 502);
  const check = h.fake.dispatches[1];
  assert.equal(check?.inputs["kind"], "check");
  const tag = h.fake.tags.at(-1) as { object: string; message: string } | undefined;
  assert.equal(tag?.object, CHECKED);
  assert.deepEqual(parseAmendRecord(tag?.message ?? "")?.amendments, [
    { criterion_index: 0, command: "npm test -- --skip-db", by: "alice" },
  ]);
  assert.equal(parseAmendRecord(tag?.message ?? "")?.key, check?.inputs["key"]);
  assert.ok(check);
  await completeRun(h, check, { ...passingResult("a", 2, "check"), head_sha: CHECKED, commits: [] });
  const merge = h.gh.find("POST", /\/merges$/)[0];
  assert.match(String((merge?.body as { commit_message: string }).commit_message), new RegExp(CHECKED));
  await h.finish();
});

test("Reject dispute keeps the criterion and blocks the stage", async () => {
  h = await openWithDispute();
  const check = checkRunOf(h, "loom: a");
  assert.ok(check);
  await h.receive("check_run", pressButton(h, check, "reject"));
  const blocked = checkRunOf(h, "loom: a");
  assert.equal(blocked?.["conclusion"], "failure");
  assert.match(
    (blocked?.["output"] as { summary: string }).summary,
    /dispute of criterion 1 rejected by @(&#8203;)?alice: the criterion stands/,
  );
  assert.equal(h.fake.dispatches.length, 1);
  await h.finish();
});
