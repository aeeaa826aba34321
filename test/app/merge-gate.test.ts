import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { checkRunPayload } from "../support/webhook-payloads.ts";
import { completeRun, DIAMOND_PLAN, pressButton } from "./loom-harness.ts";
import type { Harness } from "./loom-harness.ts";
import { openClockedPlan, type ClockedPlan } from "./open-clocked-plan.ts";
import { checkedSha, passingResult } from "./stage-results.ts";

/*
 * `auto_merge: false` through the real app (Probot, the store, the outbox) against a GitHub whose
 * every request is checked against its OpenAPI description: the passed stage waits with a Merge
 * button; a writer's `/loom merge` or press merges exactly the checked commit; a reader's, or a
 * stale commit, merges nothing and is answered.
 */

/** The diamond a → (b, c) → d, where a person merges `a`. */
const GATED_PLAN = DIAMOND_PLAN.replace(
  "      name: Foundation\n",
  "      name: Foundation\n      auto_merge: false\n",
);
const CHECKED = checkedSha("a");

let h: Harness | undefined;
let opened: ClockedPlan | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

/** The gated plan opened, `a` passed: it waits for a person. */
async function openWithWaitingRoot(): Promise<Harness> {
  opened = await openClockedPlan(GATED_PLAN);
  await completeRun(opened.harness, opened.dispatch, passingResult("a"));
  return opened.harness;
}

const stagesDispatched = (harness: Harness) => harness.fake.dispatches.map((d) => d.inputs["stage_id"]);
const checkRunOf = (harness: Harness, name: string) =>
  harness.fake.checkRuns.findLast((r) => r["name"] === name);
/** The commits loom sent GitHub to merge (`POST /merges` heads). */
const mergedHeads = (harness: Harness) =>
  harness.gh.find("POST", /\/merges$/).map((r) => (r.body as { head: string }).head);

/** A comment dated after the app's clock (the harness is the one `opened` holds). */
function comment(_harness: Harness, login: string, body: string, commentId: number) {
  assert.ok(opened, "the plan is open");
  return opened.comment(login, body, commentId);
}

test("a passed stage that a person merges waits: no merge, a Merge button with its commit, dependents held", async () => {
  h = await openWithWaitingRoot();
  assert.deepEqual(h.fake.merges, []);
  assert.deepEqual(stagesDispatched(h), ["a"]);
  const check = checkRunOf(h, "loom: a");
  assert.equal(check?.["conclusion"], "action_required");
  assert.deepEqual(
    (check?.["actions"] as { identifier: string }[]).map((a) => a.identifier),
    [`merge:${CHECKED.slice(0, 14)}`, "retry", "skip"],
  );
  const output = check?.["output"] as { title: string; summary: string };
  assert.equal(output.title, "Foundation: waiting for a person to merge");
  assert.ok(output.summary.includes(`the checks passed on \`${CHECKED}\``), output.summary);
  const plan = checkRunOf(h, "loom: PLAN-diamond");
  assert.equal(plan?.["conclusion"], "action_required");
  assert.match(
    String((plan?.["output"] as { summary: string }).summary),
    /`\/loom merge a` or the Merge button/,
  );
  await h.finish();
  h = undefined;
});

test("a reader's /loom merge and Merge press are refused with a reply and merge nothing", async () => {
  h = await openWithWaitingRoot();
  await comment(h, "bob", "/loom merge a", 701);
  assert.deepEqual(h.fake.reactions, [{ commentId: 701, content: "-1" }]);
  assert.match(
    String(h.fake.comments.at(-1)?.["body"]),
    /did nothing: @bob has read access; loom needs write or above/,
  );
  const check = checkRunOf(h, "loom: a");
  assert.ok(check);
  await h.receive(
    "check_run",
    checkRunPayload("requested_action", {
      id: Number(check["id"]),
      name: "loom: a",
      externalId: String(check["external_id"]),
      headSha: h.headSha,
      pullNumber: 1,
      sender: { login: "bob" },
      identifier: `merge:${CHECKED.slice(0, 14)}`,
    }),
  );
  assert.deepEqual(mergedHeads(h), []);
  assert.deepEqual(stagesDispatched(h), ["a"]);
  await h.finish();
  h = undefined;
});

test("a writer's /loom merge naming a stale commit is refused with the checked one; without one it merges exactly that commit", async () => {
  h = await openWithWaitingRoot();
  await comment(h, "alice", `/loom merge a ${h.headSha.slice(0, 7)}`, 702);
  assert.deepEqual(h.fake.merges, []);
  assert.deepEqual(h.fake.reactions, [{ commentId: 702, content: "-1" }]);
  assert.ok(
    String(h.fake.comments.at(-1)?.["body"]).includes(
      `loom could not merge \`a\`: \`${h.headSha.slice(0, 7)}\` is not the commit the checks of \`a\` ran on (${CHECKED.slice(0, 7)})`,
    ),
  );
  await comment(h, "alice", "/loom merge a", 703);
  assert.deepEqual(h.fake.merges, [{ head: "loom/pr-1/PLAN-diamond/a", base: "feature/plan", status: 201 }]);
  assert.deepEqual(mergedHeads(h), [CHECKED], "by SHA: the commit its checks ran on");
  assert.deepEqual(h.fake.reactions.at(-1), { commentId: 703, content: "+1" });
  assert.deepEqual(stagesDispatched(h), ["a", "b", "c"], "its dependents start once it is merged");
  assert.equal(checkRunOf(h, "loom: a")?.["conclusion"], "success");
  await h.finish();
  h = undefined;
});

test("a writer's press of the Merge button merges the commit it carries", async () => {
  h = await openWithWaitingRoot();
  const check = checkRunOf(h, "loom: a");
  assert.ok(check);
  await h.receive("check_run", pressButton(h, check, `merge:${CHECKED.slice(0, 14)}`));
  assert.deepEqual(h.fake.merges, [{ head: "loom/pr-1/PLAN-diamond/a", base: "feature/plan", status: 201 }]);
  assert.deepEqual(mergedHeads(h), [CHECKED]);
  assert.deepEqual(stagesDispatched(h), ["a", "b", "c"]);
  await h.finish();
  h = undefined;
});
