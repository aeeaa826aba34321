import assert from "node:assert/strict";
import { test } from "node:test";
import { DEFAULT_CAPS } from "../../src/config/default-caps.ts";
import { parseLoomConfig, toSettings } from "../../src/config/loom-config.ts";
import type { Settings } from "../../src/orchestrator/events.ts";

test("the session section of .github/loom.yml sets spend and turn caps", () => {
  const result = parseLoomConfig("session:\n  max_budget_usd: 4.5\n  max_turns: 60\n");
  assert.ok(result.ok);
  assert.deepEqual(result.config.session, { max_budget_usd: 4.5, max_turns: 60 });
});

test("a config without a session section leaves the caps to loom's defaults", () => {
  const result = parseLoomConfig("max_parallel: 2\n");
  assert.ok(result.ok);
  assert.equal(result.config.session, undefined);
});

test("a typo or a bad value in the session section is refused", () => {
  for (const text of [
    "session:\n  max_budget: 4\n",
    "session:\n  max_budget_usd: 0\n",
    "session:\n  max_turns: 2.5\n",
    "session:\n  max_turns: many\n",
  ]) {
    const result = parseLoomConfig(text);
    assert.ok(!result.ok, text);
    assert.match(result.problems[0]?.message ?? "", /^session/, text);
  }
});

test("none in the session section opts out of loom's default caps", () => {
  const result = parseLoomConfig("session:\n  max_budget_usd: none\n  max_turns: none\n");
  assert.ok(result.ok);
  assert.deepEqual(result.config.session, { max_budget_usd: "none", max_turns: "none" });
});

test("a cap that is neither a positive number nor none is refused with both forms named", () => {
  for (const [text, expected] of [
    [
      "session:\n  max_budget_usd: 0\n",
      "session.max_budget_usd: a positive number of US dollars, or `none` for none",
    ],
    [
      "session:\n  max_budget_usd: false\n",
      "session.max_budget_usd: a positive number of US dollars, or `none` for none",
    ],
    ["session:\n  max_turns: nope\n", "session.max_turns: a positive whole number, or `none` for none"],
    ["session:\n  max_turns: 0\n", "session.max_turns: a positive whole number, or `none` for none"],
    [
      "budget:\n  plan_usd: 0\n",
      "budget.plan_usd: a positive number of US dollars up to 1000000, or `none` for none",
    ],
    [
      "budget:\n  plan_usd: None\n",
      "budget.plan_usd: a positive number of US dollars up to 1000000, or `none` for none",
    ],
    [
      "budget:\n  plan_usd: 2000000\n",
      "budget.plan_usd: a positive number of US dollars up to 1000000, or `none` for none",
    ],
    ["budget:\n  stage_estimate_usd: -1\n", "budget.stage_estimate_usd: a positive number of US dollars"],
  ] as const) {
    const result = parseLoomConfig(text);
    assert.ok(!result.ok, text);
    assert.deepEqual(
      result.problems.map((p) => p.message),
      [expected],
      text,
    );
  }
});

test("the plan budget: loom's default without a file, the file's number, or none", () => {
  const settingsOf = (text: string | null) => {
    const result = parseLoomConfig(text);
    assert.ok(result.ok);
    return toSettings(result.config);
  };
  assert.deepEqual(pickBudget(settingsOf(null)), {
    planBudgetUsd: DEFAULT_CAPS.planBudgetUsd,
    planBudgetFrom: "default",
  });
  assert.deepEqual(pickBudget(settingsOf("budget:\n  plan_usd: 40\n  stage_estimate_usd: 2.5\n")), {
    planBudgetUsd: 40,
    planBudgetFrom: ".github/loom.yml",
    stageEstimateUsd: 2.5,
  });
  assert.deepEqual(pickBudget(settingsOf("budget:\n  stage_estimate_usd: 2\n")), {
    planBudgetUsd: DEFAULT_CAPS.planBudgetUsd,
    planBudgetFrom: "default",
    stageEstimateUsd: 2,
  });
  assert.deepEqual(pickBudget(settingsOf("budget:\n  plan_usd: none\n")), { planBudgetFrom: "opted out" });
});

function pickBudget(settings: Settings) {
  const { planBudgetUsd, planBudgetFrom, stageEstimateUsd } = settings;
  return {
    ...(planBudgetUsd === undefined ? {} : { planBudgetUsd }),
    ...(planBudgetFrom === undefined ? {} : { planBudgetFrom }),
    ...(stageEstimateUsd === undefined ? {} : { stageEstimateUsd }),
  };
}
