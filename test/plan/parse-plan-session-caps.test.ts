import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parsePlan } from "../../src/plan/parse-plan.ts";
import type { PlanResult } from "../../src/plan/plan.ts";
import { HEADER, expectError, goodStage, planMarkdown, verifyStage } from "./plan-markdown.ts";

const parse = (yaml: readonly string[]): PlanResult =>
  parsePlan("doc/plans/PLAN-test.md", planMarkdown(yaml));

type Case = { name: string; yaml: readonly string[]; fragment: string; line: number; column: number };

/** Plan-level lines sit between `version` (line 7) and `stages` so the stage list stays valid. */
const withPlanLine = (line: string): string[] => [
  "loom:",
  "  version: 1",
  line,
  "  stages:",
  ...goodStage("a"),
];

const cases: Case[] = [
  {
    name: "a plan budget of zero",
    yaml: withPlanLine("  max_budget_usd: 0"),
    fragment: "`loom.max_budget_usd` must be a positive number, got 0",
    line: 8,
    column: 19,
  },
  {
    name: "a plan budget written as text",
    yaml: withPlanLine('  max_budget_usd: "five"'),
    fragment: '`loom.max_budget_usd` must be a positive number, got "five"',
    line: 8,
    column: 19,
  },
  {
    name: "a fractional plan turn cap",
    yaml: withPlanLine("  max_turns: 2.5"),
    fragment: "`loom.max_turns` must be a positive whole number, got 2.5",
    line: 8,
    column: 14,
  },
  {
    name: "a negative plan turn cap",
    yaml: withPlanLine("  max_turns: -3"),
    fragment: "`loom.max_turns` must be a positive whole number, got -3",
    line: 8,
    column: 14,
  },
  {
    name: "a negative stage budget",
    yaml: [...HEADER, ...goodStage("a"), "      max_budget_usd: -1"],
    fragment: 'stage "a": `max_budget_usd` must be a positive number, got -1',
    line: 14,
    column: 23,
  },
  {
    name: "a stage turn cap of zero",
    yaml: [...HEADER, ...goodStage("a"), "      max_turns: 0"],
    fragment: 'stage "a": `max_turns` must be a positive whole number, got 0',
    line: 14,
    column: 18,
  },
  {
    name: "a fractional stage turn cap",
    yaml: [...HEADER, ...goodStage("a"), "      max_turns: 10.5"],
    fragment: 'stage "a": `max_turns` must be a positive whole number, got 10.5',
    line: 14,
    column: 18,
  },
];

describe("invalid session caps in a plan are errors at their line and column", () => {
  for (const { name, yaml, fragment, line, column } of cases) {
    it(`${name} → ${line}:${column}`, () => {
      expectError(parse(yaml), fragment, line, column);
    });
  }
});

describe("valid session caps in a plan", () => {
  it("are read at plan level and per stage, and draw no warning", () => {
    const result = parse([
      "loom:",
      "  version: 1",
      "  max_budget_usd: 2.5",
      "  max_turns: 40",
      "  stages:",
      ...goodStage("a"),
      "      max_budget_usd: 0.75",
      "      max_turns: 12",
      ...verifyStage(["a"]),
    ]);
    assert.ok(result.ok, JSON.stringify(result.ok ? [] : result.errors));
    assert.deepEqual(result.warnings, []);
    assert.equal(result.plan.metadata.max_budget_usd, 2.5);
    assert.equal(result.plan.metadata.max_turns, 40);
    assert.deepEqual(
      result.plan.stages.map((s) => [s.id, s.max_budget_usd, s.max_turns]),
      [
        ["a", 0.75, 12],
        ["integration-verify", undefined, undefined],
      ],
    );
  });
});
