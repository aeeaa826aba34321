import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { issueCommentPayload, pullRequestPayload } from "../support/webhook-payloads.ts";
import { DIAMOND_PLAN, PLAN_PATH, pressButton, startHarness } from "./loom-harness.ts";
import type { Harness } from "./loom-harness.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

/** `login` opens pull request `number` from their fork `<login>/widgets`, its head at `headSha`. */
function openForkPull(harness: Harness, number: number, headSha: string, login: string): Promise<void> {
  return harness.receive(
    "pull_request",
    pullRequestPayload("opened", { number, headSha, author: { login }, headRepo: `${login}/widgets` }),
  );
}

const planCheck = (harness: Harness) =>
  harness.fake.checkRuns.find((r) => r["name"] === "loom: PLAN-diamond");

test("an invalid plan gets a failing plan check with annotations at its lines, and nothing is dispatched", async () => {
  const cyclic = DIAMOND_PLAN.replace("dependencies: []", "dependencies: [d]");
  h = await startHarness({ planText: cyclic });
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));
  assert.equal(h.fake.dispatches.length, 0);
  assert.equal(h.gh.find("POST", "/repos/acme/widgets/git/refs").length, 0);
  const check = planCheck(h);
  assert.equal(check?.["conclusion"], "failure");
  assert.equal(check?.["head_sha"], h.headSha);
  const annotations = (
    check?.["output"] as { annotations: { path: string; start_line: number; message: string }[] }
  ).annotations;
  assert.ok(annotations.length > 0);
  assert.ok(annotations.every((a) => a.path === PLAN_PATH && a.start_line > 1));
  assert.ok(annotations.some((a) => /cycle/i.test(a.message)));
  assert.deepEqual(await h.store.listPlansForPull("acme", "widgets", 1), []);
  await h.finish();
  h = undefined;
});

test("a plan from a fork waits for /loom approve by a writer, pinned to the head commit", async () => {
  h = await startHarness();
  await openForkPull(h, 1, h.headSha, "mallory");
  assert.equal(h.fake.dispatches.length, 0, "nothing runs before an approval");
  const check = planCheck(h);
  assert.deepEqual(
    (check?.["actions"] as { identifier: string }[] | undefined)?.map((a) => a.identifier),
    ["approve"],
  );
  await h.receive(
    "issue_comment",
    issueCommentPayload({ number: 1, body: "/loom approve", sender: { login: "mallory" } }),
  );
  assert.equal(h.fake.dispatches.length, 0, "the author of a fork cannot approve their own plan");
  await h.receive(
    "issue_comment",
    issueCommentPayload({ number: 1, body: "/loom approve", sender: { login: "alice" } }),
  );
  assert.deepEqual(
    h.fake.dispatches.map((d) => d.inputs["stage_id"]),
    ["a"],
  );
  await h.finish();
  h = undefined;
});

test("the Approve button on the plan check approves exactly the commit it is on", async () => {
  h = await startHarness();
  await openForkPull(h, 1, h.headSha, "mallory");
  const check = planCheck(h);
  assert.ok(check);
  await h.receive("check_run", pressButton(h, check, "approve"));
  assert.deepEqual(
    h.fake.dispatches.map((d) => d.inputs["stage_id"]),
    ["a"],
  );
  await h.finish();
  h = undefined;
});

test("an unapproved fork plan costs one check run per head, not one per stage; approval writes the started stages'", async () => {
  h = await startHarness();
  const fork = { author: { login: "mallory" }, headRepo: "mallory/widgets" };
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha, ...fork }));
  const namesOn = (harness: Harness, sha: string) =>
    harness.fake.checkRuns.filter((r) => r["head_sha"] === sha).map((r) => String(r["name"]));
  assert.deepEqual(namesOn(h, h.headSha), ["loom: PLAN-diamond"], "the plan's own check run only");

  const pushed = "b".repeat(40);
  h.fake.files.set(`${pushed}:${PLAN_PATH}`, DIAMOND_PLAN);
  h.fake.refs.set("feature/plan", pushed);
  await h.receive(
    "pull_request",
    pullRequestPayload("synchronize", { number: 1, headSha: pushed, before: h.headSha, ...fork }),
  );
  assert.deepEqual(namesOn(h, pushed), ["loom: PLAN-diamond"], "a new unapproved head: one check run again");
  const writes = h.gh.find("POST", "/repos/acme/widgets/check-runs").length;
  assert.equal(writes, 2, "two heads, two check runs created in all");

  await h.receive(
    "issue_comment",
    issueCommentPayload({ number: 1, body: `/loom approve ${pushed}`, sender: { login: "alice" } }),
  );
  // A fork's head stays where the fork put it (loom's commits go to its result branch): on it, as
  // GitHub's checks list shows it (the newest run of each name), the approved plan's run and a's.
  const latest = new Map<string, Record<string, unknown>>();
  for (const run of h.fake.checkRuns.filter((r) => r["head_sha"] === pushed))
    latest.set(String(run["name"]), run);
  assert.deepEqual(
    [...latest.keys()].sort(),
    ["loom: PLAN-diamond", "loom: a"],
    "once approved, the stage it starts has its check run (b, c and d wait for a)",
  );
  assert.equal(
    latest.get("loom: PLAN-diamond")?.["status"],
    "in_progress",
    "the plan's run no longer asks for approval",
  );
  await h.finish();
  h = undefined;
});

/** mallory's fork plan opened at the harness head, then mallory pushes a second head (returned). */
async function openForkThenPush(harness: Harness): Promise<string> {
  const fork = { author: { login: "mallory" }, headRepo: "mallory/widgets" };
  await harness.receive(
    "pull_request",
    pullRequestPayload("opened", { number: 1, headSha: harness.headSha, ...fork }),
  );
  const pushed = "b".repeat(40);
  harness.fake.files.set(`${pushed}:${PLAN_PATH}`, DIAMOND_PLAN);
  harness.fake.refs.set("feature/plan", pushed);
  await harness.receive(
    "pull_request",
    pullRequestPayload("synchronize", { number: 1, headSha: pushed, before: harness.headSha, ...fork }),
  );
  return pushed;
}

test("/loom approve naming the commit the approver reviewed approves nothing when the head has moved past it", async () => {
  h = await startHarness();
  const pushed = await openForkThenPush(h);
  // alice reviewed the first head and names it; mallory's push came before her comment.
  await h.receive(
    "issue_comment",
    issueCommentPayload({ number: 1, body: `/loom approve ${h.headSha}`, sender: { login: "alice" } }),
  );
  assert.deepEqual(h.fake.dispatches, [], "the pushed head was never reviewed");
  assert.match(
    String(h.fake.comments.at(-1)?.["body"]),
    new RegExp(`is not the head of this pull request \\(${pushed.slice(0, 7)}\\)`),
  );
  await h.finish();
  h = undefined;
});

test("the Approve button on an older head's plan check approves nothing once the head moved", async () => {
  h = await startHarness();
  await openForkThenPush(h);
  // The first head's plan check, created before the push.
  const old = planCheck(h);
  assert.ok(old);
  assert.equal(old["head_sha"], h.headSha);
  // The first head's check run page still shows its button.
  await h.receive("check_run", pressButton(h, old, "approve"));
  assert.deepEqual(h.fake.dispatches, [], "the button approves its own commit, not the newer head");
  await h.finish();
  h = undefined;
});

test("the Approve button of one fork pull request's plan approves that plan, when another fork pull request has a plan at the same path", async () => {
  h = await startHarness();
  const otherHead = "9".repeat(40);
  h.fake.files.set(`${otherHead}:${PLAN_PATH}`, DIAMOND_PLAN);
  h.fake.pullFiles.set(2, [PLAN_PATH]);
  await openForkPull(h, 1, h.headSha, "mallory");
  await openForkPull(h, 2, otherHead, "eve");
  const check = h.fake.checkRuns.find(
    (r) => r["name"] === "loom: PLAN-diamond" && r["head_sha"] === otherHead,
  );
  assert.ok(check, "pull request 2's plan has its check run");
  // GitHub lists no pull request on a check run whose head is in another repository (a fork).
  const press = pressButton(h, check, "approve");
  const checkRun = press["check_run"] as Record<string, unknown>;
  checkRun["head_sha"] = otherHead;
  checkRun["pull_requests"] = [];
  await h.receive("check_run", press);
  assert.deepEqual(
    h.fake.dispatches.map((d) => [d.inputs["key"]?.includes("-pr2-"), d.inputs["stage_id"]]),
    [[true, "a"]],
    "pull request 2's root stage runs; pull request 1's plan still waits",
  );
  await h.finish();
  h = undefined;
});
