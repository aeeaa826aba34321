import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { issueCommentPayload, pullRequestPayload, workflowRunPayload } from "../support/webhook-payloads.ts";
import { startHarness } from "./loom-harness.ts";
import type { Harness } from "./loom-harness.ts";
import { passingResult } from "./stage-results.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const dispatched = (harness: Harness) => harness.fake.dispatches.map((d) => d.inputs["stage_id"]).sort();

/** The diamond (a → b, c → d) with a $0.05 plan budget; stage a finishes having cost $0.03. */
async function runOutOfBudget(): Promise<Harness> {
  const harness = await startHarness();
  harness.fake.files.set("main:.github/loom.yml", "budget:\n  plan_usd: 0.05\n");
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
  // b (and d after it) at a's $0.03 each would bring the plan to $0.09: over $0.05.
  assert.deepEqual(dispatched(h), ["a"]);
  // The plan's check run on the head (loom's merge of a): an older one is superseded.
  const plan = h.fake.checkRuns.findLast((r) => r["name"] === "loom: PLAN-diamond");
  assert.equal(plan?.["head_sha"], h.fake.refs.get("feature/plan"));
  assert.equal(plan?.["conclusion"], "action_required", "a person must act");
  const planOutput = plan?.["output"] as { title: string; summary: string };
  assert.match(planOutput.title, /Waiting for budget/);
  assert.match(
    planOutput.summary,
    /\*\*Budget:\*\* \$0\.03 spent of \$0\.05 · ⏸ `b` waits: .* forecast is \$0\.09/,
  );
  const b = h.fake.checkRuns.find((r) => r["name"] === "loom: b");
  assert.match(
    (b?.["output"] as { summary: string }).summary,
    /\*\*Waiting for budget:\*\* .*\$0\.09, over its \$0\.05 budget/,
  );
  const comment = String(h.fake.comments.find((c) => String(c["body"]).includes("loom:status"))?.["body"]);
  assert.match(comment, /\*\*Budget:\*\* \$0\.03 spent of \$0\.05/);
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

test("/loom budget needs an amount like +5, and a plan without a budget has none to raise", async () => {
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
    /PLAN-diamond has no budget to raise: set `budget\.plan_usd`/,
  );
  assert.deepEqual(h.fake.reactions.at(-1), { commentId: 702, content: "-1" });
  await h.finish();
  h = undefined;
});
