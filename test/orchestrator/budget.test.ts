import { test } from "node:test";
import assert from "node:assert/strict";
import { costReport } from "./cost-report.ts";
import type { CapsInForce } from "../../src/config/caps-in-force.ts";
import type { PlanSpec } from "../../src/orchestrator/events.ts";
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
  assert.deepEqual(story.state.budgetWait, {
    stageId: "b",
    spentUsd: 2,
    forecastUsd: 6,
    budgetUsd: 3,
    stagesAhead: 2,
    basis: "average",
  });
  assert.equal(
    story.stage("b").notes.at(-1)?.text,
    "waiting for budget: the plan's forecast is $6.00 ($2.00 spent, 2 stages ahead at $2.00 each, the plan's average per completed stage), over its $3.00 budget; `/loom budget +<usd>` from someone with write access raises it",
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
  assert.deepEqual(story.state.budgetWait, {
    stageId: "b",
    spentUsd: 2,
    forecastUsd: 6,
    budgetUsd: 5,
    stagesAhead: 2,
    basis: "average",
  });
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

const DEFAULT_CAPS_IN_FORCE: CapsInForce = {
  maxBudgetUsd: 10,
  maxTurns: 200,
  from: { maxBudgetUsd: "default", maxTurns: "default" },
};

/** `plan` as the App builds it: every stage at $10 sessions, `big` at its own $95. */
function withCaps(plan: PlanSpec): PlanSpec {
  return {
    ...plan,
    caps: DEFAULT_CAPS_IN_FORCE,
    stages: plan.stages.map((spec) =>
      spec.id === "big"
        ? {
            ...spec,
            caps: {
              ...DEFAULT_CAPS_IN_FORCE,
              maxBudgetUsd: 95,
              from: { maxBudgetUsd: "stage", maxTurns: "default" },
            },
          }
        : spec,
    ),
  };
}

const wave = withCaps(
  makePlan([
    ["a", []],
    ["big", []],
  ]),
);

test("a first wave whose session caps add up past the budget does not start, and says why on the first stage", () => {
  const story = new Story(wave, { settings: { planBudgetUsd: 100, planBudgetFrom: "default" } });
  assert.deepEqual(story.dispatched(), [], "$10 + $95 is over $100: nothing starts");
  assert.deepEqual(story.state.budgetWait, {
    stageId: "a",
    spentUsd: 0,
    forecastUsd: 105,
    budgetUsd: 100,
    stagesAhead: 2,
    basis: "session cap",
  });
  assert.equal(
    story.stage("a").notes.at(-1)?.text,
    "waiting for budget: the plan's forecast is $105.00 ($0.00 spent, 2 stages ahead at their session caps until a stage completes), over its $100.00 budget; `/loom budget +<usd>` from someone with write access raises it",
  );
  assert.equal(
    story.stage("big").notes.some((n) => n.text.startsWith("waiting for budget")),
    false,
  );
});

test("/loom budget +N releases a held first wave once the forecast fits: every stage of the wave starts", () => {
  const story = new Story(wave, { settings: { planBudgetUsd: 100, planBudgetFrom: "default" } });
  raise(story, 4);
  assert.deepEqual(story.dispatched(), [], "$105 is still over $104");
  raise(story, 1);
  assert.deepEqual(story.dispatched().sort(), ["a", "big"], "$105 fits $105");
  assert.equal(story.state.budgetWait, null);
});

test("budget.stage_estimate_usd forecasts the first wave instead of the caps", () => {
  const story = new Story(wave, { settings: { planBudgetUsd: 100, stageEstimateUsd: 3 } });
  assert.deepEqual(story.dispatched().sort(), ["a", "big"], "2 × $3 fits $100");
});

test("a plan that opted out of the budget starts everything and refuses /loom budget, naming the opt-out", () => {
  const story = new Story(wave, { settings: { planBudgetFrom: "opted out" } });
  assert.deepEqual(story.dispatched().sort(), ["a", "big"]);
  raise(story, 5);
  assert.deepEqual(
    story.of("reply").map((r) => [r.reaction, r.body]),
    [
      [
        "-1",
        "PLAN-demo has no budget to raise: `.github/loom.yml` opts out (`budget.plan_usd: none`); a number there gives plans one.",
      ],
    ],
  );
});
