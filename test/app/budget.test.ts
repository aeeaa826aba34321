import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { issueCommentPayload, pullRequestPayload, workflowRunPayload } from "../support/webhook-payloads.ts";
import { DIAMOND_PLAN, startHarness } from "./loom-harness.ts";
import type { Harness } from "./loom-harness.ts";
import { passingResult } from "./stage-results.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const dispatched = (harness: Harness) => harness.fake.dispatches.map((d) => d.inputs["stage_id"]).sort();

/**
 * The diamond (a → b, c → d) with a $0.05 plan budget and stages estimated at $0.01 (so the first
 * wave fits); stage a finishes having cost $0.03.
 */
async function runOutOfBudget(): Promise<Harness> {
  const harness = await startHarness();
  harness.fake.files.set("main:.github/loom.yml", "budget:\n  plan_usd: 0.05\n  stage_estimate_usd: 0.01\n");
  harness.fake.roles.set("bob", "read");
  await harness.receive(
    "pull_request",
    pullRequestPayload("opened", { number: 1, headSha: harness.headSha }),
  );
  const [dispatch] = harness.fake.dispatches;
  assert.ok(dispatch);
  harness.fake.finishRun(dispatch.runId, "success", { ...passingResult("a"), cost_usd: 0.03 });
  await harness.receive(
    "workflow_run",
    workflowRunPayload("completed", { id: dispatch.runId, displayTitle: `loom ${dispatch.inputs["key"]}` }),
  );
  return harness;
}

test("a plan whose budget runs out mid-graph starts no further stage and says why on its check runs and comment", async () => {
  h = await runOutOfBudget();
  assert.deepEqual(
    h.fake.merges.map((m) => m.head),
    ["loom/pr-1/PLAN-diamond/a"],
    "a's work is merged",
  );
  // b, c and d at a's $0.03 each would bring the plan to $0.12: over $0.05.
  assert.deepEqual(dispatched(h), ["a"]);
  // The plan's check run on the head (loom's merge of a): an older one is superseded.
  const plan = h.fake.checkRuns.findLast((r) => r["name"] === "loom: PLAN-diamond");
  assert.equal(plan?.["head_sha"], h.fake.refs.get("feature/plan"));
  assert.equal(plan?.["conclusion"], "action_required", "a person must act");
  const planOutput = plan?.["output"] as { title: string; summary: string };
  assert.match(planOutput.title, /Waiting for budget/);
  assert.match(
    planOutput.summary,
    /\*\*Budget:\*\* \$0\.03 spent of \$0\.05 \(\$0\.05 `budget\.plan_usd`\) · forecast \$0\.12 \(\$0\.03 spent, 3 stages ahead at \$0\.03 each, the plan's average per completed stage\)\n\n⏸ `b` waits: the plan's forecast is \$0\.12/,
  );
  const b = h.fake.checkRuns.find((r) => r["name"] === "loom: b");
  assert.match(
    (b?.["output"] as { summary: string }).summary,
    /\*\*Waiting for budget:\*\* the plan's forecast is \$0\.12 .*, over its \$0\.05 budget/,
  );
  const comment = String(h.fake.comments.find((c) => String(c["body"]).includes("loom:status"))?.["body"]);
  assert.match(comment, /\*\*Budget:\*\* \$0\.03 spent of \$0\.05 · forecast \$0\.12 · .* · ⏸ `b` waits/);
  assert.match(comment, /waiting for budget \(`\/loom budget \+<usd>`\)/);
  await h.finish();
  h = undefined;
});

test("/loom budget +N from a reader is refused and starts nothing; from a writer it resumes the plan", async () => {
  h = await runOutOfBudget();
  await h.receive(
    "issue_comment",
    issueCommentPayload({ number: 1, body: "/loom budget +1", sender: { login: "bob" }, commentId: 601 }),
  );
  assert.deepEqual(dispatched(h), ["a"], "a reader cannot buy more work");
  assert.deepEqual(h.fake.reactions.at(-1), { commentId: 601, content: "-1" });

  await h.receive(
    "issue_comment",
    issueCommentPayload({ number: 1, body: "/loom budget +1", sender: { login: "alice" }, commentId: 602 }),
  );
  assert.deepEqual(dispatched(h), ["a", "b", "c"], "b and c start once the budget allows them");
  assert.deepEqual(h.fake.reactions.at(-1), { commentId: 602, content: "+1" });
  assert.match(
    String(h.fake.comments.at(-1)?.["body"]),
    /@alice raised the budget of PLAN-diamond by \$1\.00 to \$1\.05 \(\$0\.03 spent\)/,
  );
  const plan = h.fake.checkRuns.filter((r) => r["name"] === "loom: PLAN-diamond").at(-1);
  assert.doesNotMatch((plan?.["output"] as { summary: string }).summary, /waits/);
  await h.finish();
  h = undefined;
});

test("/loom budget needs an amount like +5; without .github/loom.yml a plan has loom's default budget to raise", async () => {
  h = await startHarness();
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));
  await h.receive(
    "issue_comment",
    issueCommentPayload({ number: 1, body: "/loom budget 5", sender: { login: "alice" }, commentId: 701 }),
  );
  assert.match(String(h.fake.comments.at(-1)?.["body"]), /needs an amount to add, like `\+5`/);
  await h.receive(
    "issue_comment",
    issueCommentPayload({ number: 1, body: "/loom budget +5", sender: { login: "alice" }, commentId: 702 }),
  );
  assert.match(
    String(h.fake.comments.at(-1)?.["body"]),
    /@alice raised the budget of PLAN-diamond by \$5\.00 to \$105\.00 \(\$0\.00 spent\)/,
  );
  assert.deepEqual(h.fake.reactions.at(-1), { commentId: 702, content: "+1" });
  await h.finish();
  h = undefined;
});

test("a plan whose .github/loom.yml opts out of the budget runs every stage it can and refuses /loom budget, saying so", async () => {
  h = await startHarness();
  h.fake.files.set("main:.github/loom.yml", "budget:\n  plan_usd: none\nsession:\n  max_budget_usd: none\n");
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));
  assert.deepEqual(dispatched(h), ["a"]);
  const plan = h.fake.checkRuns.findLast((r) => r["name"] === "loom: PLAN-diamond");
  const summary = (plan?.["output"] as { summary: string }).summary;
  assert.match(
    summary,
    /\*\*Budget:\*\* none \(`\.github\/loom\.yml` opts out with `budget\.plan_usd: none`\)/,
  );
  assert.match(
    summary,
    /\*\*Session caps:\*\* no spending cap \(`\.github\/loom\.yml` opts out\) and 200 turns \(loom's default\) a session/,
  );
  await h.receive(
    "issue_comment",
    issueCommentPayload({ number: 1, body: "/loom budget +5", sender: { login: "alice" }, commentId: 703 }),
  );
  assert.match(
    String(h.fake.comments.at(-1)?.["body"]),
    /PLAN-diamond has no budget to raise: `\.github\/loom\.yml` opts out \(`budget\.plan_usd: none`\)/,
  );
  assert.deepEqual(h.fake.reactions.at(-1), { commentId: 703, content: "-1" });
  await h.finish();
  h = undefined;
});

test("without .github/loom.yml a first wave whose caps pass loom's default budget is held, shown on the check runs, and released by a writer", async () => {
  // b asks for $95 sessions: a's $10 + b's $95 + c's and d's $10 = $125 > $100, before anything ran.
  h = await startHarness({
    planText: DIAMOND_PLAN.replace("      name: Left\n", "      name: Left\n      max_budget_usd: 95\n"),
  });
  h.fake.roles.set("bob", "read");
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));
  assert.deepEqual(dispatched(h), [], "nothing starts");
  const plan = h.fake.checkRuns.findLast((r) => r["name"] === "loom: PLAN-diamond");
  assert.equal(plan?.["conclusion"], "action_required");
  const summary = (plan?.["output"] as { summary: string }).summary;
  assert.ok(
    summary.includes(
      "**Budget:** $0.00 spent of $100.00 ($100.00 loom's default) · forecast $125.00 ($0.00 spent, 4 stages ahead at their session caps until a stage completes)",
    ),
    summary,
  );
  assert.ok(
    summary.includes(
      "**Session caps:** $10.00 (loom's default) and 200 turns (loom's default) a session; `b`: $95.00 (the stage) and 200 turns (loom's default)",
    ),
    summary,
  );
  const a = h.fake.checkRuns.findLast((r) => r["name"] === "loom: a");
  assert.match(
    (a?.["output"] as { summary: string }).summary,
    /\*\*Waiting for budget:\*\* the plan's forecast is \$125\.00/,
  );
  const comment = String(h.fake.comments.find((c) => String(c["body"]).includes("loom:status"))?.["body"]);
  assert.match(
    comment,
    /\*\*Budget:\*\* \$0\.00 spent of \$100\.00 · forecast \$125\.00 · caps a session: \$10\.00, 200 turns · ⏸ `a` waits/,
  );

  await h.receive(
    "issue_comment",
    issueCommentPayload({ number: 1, body: "/loom budget +25", sender: { login: "bob" }, commentId: 801 }),
  );
  assert.deepEqual(dispatched(h), [], "a reader cannot release it");
  await h.receive(
    "issue_comment",
    issueCommentPayload({ number: 1, body: "/loom budget +25", sender: { login: "alice" }, commentId: 802 }),
  );
  assert.deepEqual(dispatched(h), ["a"], "$125 fits $125: the first wave starts");
  await h.finish();
  h = undefined;
});
