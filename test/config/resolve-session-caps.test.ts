import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DEFAULT_CAPS } from "../../src/config/default-caps.ts";
import { resolveSessionCaps } from "../../src/config/resolve-session-caps.ts";
import type { CapSource } from "../../src/config/caps-in-force.ts";
import type { CapValues, SessionCaps } from "../../src/config/resolve-session-caps.ts";

type RepoSession = { max_budget_usd?: number | "none"; max_turns?: number | "none" };

type Case = {
  name: string;
  stage?: CapValues;
  plan?: CapValues;
  repo?: RepoSession | null;
  inputs?: CapValues;
  expected: Omit<SessionCaps, "notes">;
  /** Fragments the notes must contain, in order; no notes when empty. */
  notes?: string[];
};

/** The caps in force: `[value, source]` for the spend cap, then the turn cap; `null` value = none. */
function caps(
  budget: [number | null, CapSource],
  turns: [number | null, CapSource],
): Omit<SessionCaps, "notes"> {
  return {
    ...(budget[0] === null ? {} : { maxBudgetUsd: budget[0] }),
    ...(turns[0] === null ? {} : { maxTurns: turns[0] }),
    from: { maxBudgetUsd: budget[1], maxTurns: turns[1] },
  };
}

const DEFAULTS = caps([DEFAULT_CAPS.sessionBudgetUsd, "default"], [DEFAULT_CAPS.sessionTurns, "default"]);

const cases: Case[] = [
  { name: "nothing set anywhere gives loom's default caps", expected: DEFAULTS },
  { name: "a repository config without session: gives the defaults too", repo: {}, expected: DEFAULTS },
  {
    name: "the action input applies when nothing else is set",
    inputs: { max_budget_usd: 3, max_turns: 50 },
    expected: caps([3, "action input"], [50, "action input"]),
  },
  {
    name: "the repository default wins over the action input",
    repo: { max_budget_usd: 2, max_turns: 30 },
    inputs: { max_budget_usd: 1, max_turns: 10 },
    expected: caps([2, ".github/loom.yml"], [30, ".github/loom.yml"]),
  },
  {
    name: "the plan wins over the repository default when it asks for less",
    plan: { max_budget_usd: 1.5, max_turns: 20 },
    repo: { max_budget_usd: 2, max_turns: 30 },
    expected: caps([1.5, "plan"], [20, "plan"]),
  },
  {
    name: "the stage wins over the plan",
    stage: { max_budget_usd: 0.5, max_turns: 8 },
    plan: { max_budget_usd: 1.5, max_turns: 20 },
    inputs: { max_budget_usd: 9, max_turns: 90 },
    expected: caps([0.5, "stage"], [8, "stage"]),
  },
  {
    name: "each cap is chosen on its own, the one nobody set at loom's default",
    stage: { max_turns: 8 },
    expected: caps([DEFAULT_CAPS.sessionBudgetUsd, "default"], [8, "stage"]),
  },
  {
    name: "a plan may ask for more than loom's default: the default is no ceiling",
    plan: { max_budget_usd: 60, max_turns: 500 },
    expected: caps([60, "plan"], [500, "plan"]),
  },
  {
    name: "a stage asking for more than the repository ceiling gets the ceiling",
    stage: { max_budget_usd: 50, max_turns: 500 },
    repo: { max_budget_usd: 5, max_turns: 100 },
    expected: caps([5, ".github/loom.yml"], [100, ".github/loom.yml"]),
    notes: ["max_budget_usd: the stage asks for $50", "max_turns: the stage asks for 500 turns"],
  },
  {
    name: "a plan asking for more than the ceiling gets the ceiling",
    plan: { max_turns: 200 },
    repo: { max_turns: 100 },
    expected: caps([DEFAULT_CAPS.sessionBudgetUsd, "default"], [100, ".github/loom.yml"]),
    notes: ["the plan asks for 200 turns; .github/loom.yml allows at most 100 turns, so 100 turns applies"],
  },
  {
    name: "a cap the repository leaves out comes from the action input, with no ceiling",
    repo: { max_turns: 100 },
    inputs: { max_budget_usd: 10, max_turns: 300 },
    expected: caps([10, "action input"], [100, ".github/loom.yml"]),
  },
  {
    name: "a value equal to the ceiling stands without a note",
    plan: { max_budget_usd: 5 },
    repo: { max_budget_usd: 5 },
    expected: caps([5, "plan"], [DEFAULT_CAPS.sessionTurns, "default"]),
  },
  {
    name: "without a repository config the plan's caps stand as written",
    plan: { max_budget_usd: 500, max_turns: 1000 },
    repo: null,
    expected: caps([500, "plan"], [1000, "plan"]),
  },
  {
    name: "none in the repository config leaves a session uncapped when nobody else sets a cap",
    repo: { max_budget_usd: "none", max_turns: "none" },
    expected: caps([null, "opted out"], [null, "opted out"]),
  },
  {
    name: "none opts out of the default only: a stage, the plan or the action input still caps",
    stage: { max_turns: 40 },
    plan: { max_budget_usd: 3 },
    repo: { max_budget_usd: "none", max_turns: "none" },
    expected: caps([3, "plan"], [40, "stage"]),
  },
  {
    name: "none is no ceiling: a plan asking for much gets it",
    plan: { max_budget_usd: 900 },
    repo: { max_budget_usd: "none" },
    inputs: { max_turns: 12 },
    expected: caps([900, "plan"], [12, "action input"]),
  },
];

describe("resolveSessionCaps", () => {
  for (const c of cases) {
    it(c.name, () => {
      const { notes, ...resolved } = resolveSessionCaps({
        stage: c.stage ?? {},
        plan: c.plan ?? {},
        repoConfig: c.repo === null ? null : { session: c.repo },
        inputs: c.inputs ?? {},
      });
      assert.deepEqual(resolved, c.expected);
      const fragments = c.notes ?? [];
      assert.equal(notes.length, fragments.length, notes.join("\n"));
      fragments.forEach((fragment, i) =>
        assert.ok(notes[i]?.includes(fragment), `${notes[i]} ∌ ${fragment}`),
      );
    });
  }
});
