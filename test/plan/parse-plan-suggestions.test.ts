import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { findClosestName } from "../../src/plan/find-closest-name.ts";
import { parsePlan } from "../../src/plan/parse-plan.ts";
import type { PlanResult } from "../../src/plan/plan.ts";
import { HEADER, expectError, expectWarning, goodStage, planMarkdown, verifyStage } from "./plan-markdown.ts";

const parse = (yaml: readonly string[]): PlanResult =>
  parsePlan("doc/plans/PLAN-test.md", planMarkdown(yaml));

/** Stage "a" (lines 9–13), then stage "b" from line 14 with `extra` lines after its name. */
const withStageB = (...extra: string[]): string[] => [
  ...HEADER,
  ...goodStage("a"),
  "    - id: b",
  "      name: Stage b",
  "      description: Change the parser in src/b and cover the change with tests",
  ...extra,
];

describe("a misspelt key is an error with 'did you mean', at the key", () => {
  const cases: { name: string; yaml: string[]; fragment: string; line: number; column: number }[] = [
    {
      name: "dependecies (the stage would run before the work it needs)",
      yaml: withStageB("      dependecies: [a]", '      acceptance: ["npm test"]'),
      fragment:
        'stage "b": unknown key `dependecies` (did you mean `dependencies`?): as written it is not used; fix the spelling',
      line: 17,
      column: 7,
    },
    {
      name: "acceptence",
      yaml: withStageB("      dependencies: [a]", '      acceptence: ["npm test"]'),
      fragment: "unknown key `acceptence` (did you mean `acceptance`?)",
      line: 18,
      column: 7,
    },
    {
      name: "another tool's name: needs",
      yaml: withStageB("      needs: [a]", '      acceptance: ["npm test"]'),
      fragment: "unknown key `needs` (did you mean `dependencies`?)",
      line: 17,
      column: 7,
    },
    {
      name: "a key in another letter case",
      yaml: withStageB("      Dependencies: [a]", '      acceptance: ["npm test"]'),
      fragment: "unknown key `Dependencies` (did you mean `dependencies`?)",
      line: 17,
      column: 7,
    },
    {
      name: "a plan key",
      yaml: ["loom:", "  version: 1", "  max_turn: 20", "  stages:", ...goodStage("a")],
      fragment: "unknown key `loom.max_turn` (did you mean `loom.max_turns`?)",
      line: 8,
      column: 3,
    },
    {
      name: "the loom key itself",
      yaml: ["Loom:", "  version: 1", "  stages:", ...goodStage("a")],
      fragment: "the METADATA yaml has no `loom:` key (did you mean `loom:` for `Loom:`?)",
      line: 6,
      column: 1,
    },
    {
      name: "a key of an acceptance check",
      yaml: [
        ...withStageB("      dependencies: [a]", "      acceptance:"),
        "        - command: npm test",
        "          stdout_contain: [ok]",
      ],
      fragment: "unknown key `acceptance[0].stdout_contain` (did you mean `stdout_contains`?)",
      line: 20,
      column: 11,
    },
  ];
  for (const { name, yaml, fragment, line, column } of cases) {
    it(`${name} → ${line}:${column}`, () => expectError(parse(yaml), fragment, line, column));
  }
});

describe("other unknown keys stay warnings", () => {
  it("a key close to no loom key is kept, with a warning, and the plan is valid", () => {
    const result = parse([...HEADER, ...goodStage("a"), "      truths: [x]", ...verifyStage(["a"])]);
    assert.ok(result.ok, JSON.stringify(result.ok ? [] : result.errors));
    expectWarning(result, 'stage "a": unknown key `truths` is kept but not used', 14, 7);
  });

  it("a misspelling next to the real key is a warning that names it (nothing is lost)", () => {
    const result = parse(
      withStageB("      dependencies: [a]", "      dependecies: [a]", '      acceptance: ["x"]'),
    );
    expectWarning(
      result,
      "unknown key `dependecies` is kept but not used (`dependencies` is set too)",
      18,
      7,
    );
  });

  it("a reference-CLI key that means nothing here is 'ignored here', not a misspelling", () => {
    const result = parse([...HEADER, ...goodStage("a"), "      skills: [x]", ...verifyStage(["a"])]);
    assert.ok(result.ok);
    expectWarning(result, "`skills` is ignored here", 14, 7);
  });
});

describe("an unknown dependency gets 'did you mean' when a stage id is close", () => {
  it("one letter off", () => {
    const yaml = [...HEADER, ...goodStage("api-server"), ...goodStage("b", ["api-sever"])];
    expectError(parse(yaml), 'depends on unknown stage "api-sever" (did you mean "api-server"?)', 17, 22);
  });

  it("nothing close: no guess", () => {
    const result = parse([...HEADER, ...goodStage("api-server"), ...goodStage("b", ["frontend"])]);
    expectError(result, 'stage "b" depends on unknown stage "frontend"', 17, 22);
    assert.ok(!result.ok && !result.errors.some((e) => e.message.includes("did you mean")));
  });
});

describe("findClosestName", () => {
  const keys = ["dependencies", "acceptance", "name", "model", "files", "setup"];
  const cases: [string, string | null][] = [
    ["dependecies", "dependencies"],
    ["dependancies", "dependencies"],
    ["acceptence", "acceptance"],
    ["accpetance", "acceptance"],
    ["ACCEPTANCE", "acceptance"],
    ["nmae", "name"],
    ["mdoel", "model"],
    ["file", "files"],
    ["truths", null],
    ["owner", null],
    ["nam", null],
    ["dependencies", null],
  ];
  for (const [word, expected] of cases) {
    it(`${word} → ${String(expected)}`, () => assert.equal(findClosestName(word, keys), expected));
  }
});
