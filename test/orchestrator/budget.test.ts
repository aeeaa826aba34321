import { test } from "node:test";
import assert from "node:assert/strict";
import { costReport } from "./cost-report.ts";
import { KEY, Story, makePlan } from "./story.ts";

const cost = costReport;

/** Stage `id` runs, completes having cost `usd` and merges. */
function passWithCost(story: Story, id: string, usd: number): void {
  story.pass(id, cost(usd));
}

function raise(story: Story, amountUsd?: number) {
  return story.send({
    type: "command.received",
    command: "budget",
    sender: "octocat",
    source: { kind: "comment", commentId: 77 },
    ...(amountUsd === undefined ? {} : { amountUsd }),
  });
}

const chain = makePlan([
  ["a", []],
  ["b", ["a"]],
  ["c", ["b"]],
]);

test("a stage whose forecast would pass the plan's budget waits, saying the numbers and how to raise it", () => {
  const story = new Story(chain, { settings: { planBudgetUsd: 3 } });
  assert.deepEqual(story.dispatched(), ["a"], "before any stage completed the first one always starts");
  passWithCost(story, "a", 2);
  assert.deepEqual(story.dispatched(), [], "b and c at $2 each would bring the plan to $6");
  assert.equal(story.stage("b").status, "queued");
  assert.deepEqual(story.state.budgetWait, { stageId: "b", spentUsd: 2, forecastUsd: 6, budgetUsd: 3 });
  assert.equal(
    story.stage("b").notes.at(-1)?.text,
    "waiting for budget: starting it would bring the plan's forecast to $6.00, over its $3.00 budget ($2.00 spent); `/loom budget +<usd>` from someone with write access raises it",
  );
  const notes = story.stage("b").notes.length;
  story.send({ type: "tick" }, 60_000);
  assert.equal(story.stage("b").notes.length, notes, "the same wait is noted once");
  assert.deepEqual(story.of("syncStatusComment"), [], "nothing changed for the status comment");
});

test("/loom budget raises the budget by the amount; the stage starts once its forecast fits", () => {
  const story = new Story(chain, { settings: { planBudgetUsd: 3 } });
  passWithCost(story, "a", 2);
  const first = raise(story, 2);
  assert.deepEqual(
    first.filter((e) => e.type === "reply"),
    [
      {
        type: "reply",
        key: `${KEY}:@reply:comment-77:budget:`,
        source: { kind: "comment", commentId: 77 },
        reaction: "+1",
        body: "@octocat raised the budget of PLAN-demo by $2.00 to $5.00 ($2.00 spent).",
      },
    ],
  );
  assert.deepEqual(story.dispatched(), [], "$6 is still over $5");
  assert.deepEqual(story.state.budgetWait, { stageId: "b", spentUsd: 2, forecastUsd: 6, budgetUsd: 5 });
  assert.match(story.stage("b").notes.at(-1)?.text ?? "", /over its \$5\.00 budget/, "a new budget is noted");
  raise(story, 1);
  assert.equal(story.state.budgetRaisedUsd, 3);
  assert.match(story.of("reply")[0]?.body ?? "", /by \$1\.00 to \$6\.00/);
  assert.deepEqual(story.dispatched(), ["b"], "a forecast equal to the budget fits");
  assert.equal(story.state.budgetWait, null);
});

test("with several stages over budget the first in plan order is the one said to wait", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", ["a"]],
      ["c", ["a"]],
    ]),
    { settings: { planBudgetUsd: 3 } },
  );
  passWithCost(story, "a", 2);
  assert.deepEqual(story.dispatched(), []);
  assert.equal(story.state.budgetWait?.stageId, "b");
  assert.equal(
    story.stage("c").notes.some((n) => n.text.startsWith("waiting for budget")),
    false,
  );
});

test("/loom budget on a plan without a budget, or without an amount, is refused with what to set", () => {
  const refusal =
    "PLAN-demo has no budget to raise: set `budget.plan_usd` in `.github/loom.yml` to give plans one.";
  const none = new Story(chain);
  raise(none, 5);
  assert.deepEqual(
    none.of("reply").map((r) => [r.reaction, r.body]),
    [["-1", refusal]],
  );
  assert.equal(none.state.budgetRaisedUsd, undefined);
  const noAmount = new Story(chain, { settings: { planBudgetUsd: 3 } });
  raise(noAmount);
  assert.deepEqual(
    noAmount.of("reply").map((r) => [r.reaction, r.body]),
    [["-1", refusal]],
  );
});
