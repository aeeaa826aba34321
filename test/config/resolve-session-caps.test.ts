import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { resolveSessionCaps } from "../../src/config/resolve-session-caps.ts";
import type { CapValues, SessionCaps } from "../../src/config/resolve-session-caps.ts";

type Case = {
  name: string;
  stage?: CapValues;
  plan?: CapValues;
  repo?: CapValues | null;
  inputs?: CapValues;
  expected: Omit<SessionCaps, "notes">;
  /** Fragments the notes must contain, in order; no notes when empty. */
  notes?: string[];
};

const cases: Case[] = [
  { name: "nothing set anywhere leaves the session uncapped", expected: {} },
  {
    name: "the action input applies when nothing else is set",
    inputs: { max_budget_usd: 3, max_turns: 50 },
    expected: { maxBudgetUsd: 3, maxTurns: 50 },
  },
  {
    name: "the repository default wins over the action input",
    repo: { max_budget_usd: 2, max_turns: 30 },
    inputs: { max_budget_usd: 1, max_turns: 10 },
    expected: { maxBudgetUsd: 2, maxTurns: 30 },
  },
  {
    name: "the plan wins over the repository default when it asks for less",
    plan: { max_budget_usd: 1.5, max_turns: 20 },
    repo: { max_budget_usd: 2, max_turns: 30 },
    expected: { maxBudgetUsd: 1.5, maxTurns: 20 },
  },
  {
    name: "the stage wins over the plan",
    stage: { max_budget_usd: 0.5, max_turns: 8 },
    plan: { max_budget_usd: 1.5, max_turns: 20 },
    inputs: { max_budget_usd: 9, max_turns: 90 },
    expected: { maxBudgetUsd: 0.5, maxTurns: 8 },
  },
  {
    name: "each cap is chosen on its own",
    stage: { max_turns: 8 },
    plan: { max_budget_usd: 1.5 },
    expected: { maxBudgetUsd: 1.5, maxTurns: 8 },
  },
  {
    name: "a stage asking for more than the repository ceiling gets the ceiling",
    stage: { max_budget_usd: 50, max_turns: 500 },
    repo: { max_budget_usd: 5, max_turns: 100 },
    expected: { maxBudgetUsd: 5, maxTurns: 100 },
    notes: ["max_budget_usd: the stage asks for $50", "max_turns: the stage asks for 500 turns"],
  },
  {
    name: "a plan asking for more than the ceiling gets the ceiling",
    plan: { max_turns: 200 },
    repo: { max_turns: 100 },
    expected: { maxTurns: 100 },
    notes: ["the plan asks for 200 turns; .github/loom.yml allows at most 100 turns, so 100 turns applies"],
  },
  {
    name: "a cap the repository leaves out comes from the action input, with no ceiling",
    repo: { max_turns: 100 },
    inputs: { max_budget_usd: 10, max_turns: 300 },
    expected: { maxBudgetUsd: 10, maxTurns: 100 },
  },
  {
    name: "a value equal to the ceiling stands without a note",
    plan: { max_budget_usd: 5 },
    repo: { max_budget_usd: 5 },
    expected: { maxBudgetUsd: 5 },
  },
  {
    name: "without a repository config the plan's caps stand as written",
    plan: { max_budget_usd: 500, max_turns: 1000 },
    repo: null,
    expected: { maxBudgetUsd: 500, maxTurns: 1000 },
  },
];

describe("resolveSessionCaps", () => {
  for (const c of cases) {
    it(c.name, () => {
      const { notes, ...caps } = resolveSessionCaps({
        stage: c.stage ?? {},
        plan: c.plan ?? {},
        repoConfig: c.repo === null ? null : { session: c.repo },
        inputs: c.inputs ?? {},
      });
      assert.deepEqual(caps, c.expected);
      const fragments = c.notes ?? [];
      assert.equal(notes.length, fragments.length, notes.join("\n"));
      fragments.forEach((fragment, i) =>
        assert.ok(notes[i]?.includes(fragment), `${notes[i]} ∌ ${fragment}`),
      );
    });
  }
});
