import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parsePlan } from "../../src/plan/parse-plan.ts";
import type { PlanResult } from "../../src/plan/plan.ts";
import { HEADER, planMarkdown } from "./plan-markdown.ts";

const parse = (yaml: readonly string[]): PlanResult =>
  parsePlan("doc/plans/PLAN-test.md", planMarkdown(yaml));

/** The warnings of a valid plan, as `line:column message`. */
function warningsOf(yaml: readonly string[]): string[] {
  const result = parse(yaml);
  assert.ok(result.ok, JSON.stringify(result.ok ? [] : result.errors));
  return result.warnings.map((w) => `${w.line}:${w.column} ${w.message}`);
}

/** A stage with a quoted description (3 lines) and the case's lines after. */
const described = (id: string, description: string, extra: readonly string[] = []): string[] => [
  `    - id: ${id}`,
  `      name: ${id}`,
  `      description: "${description}"`,
  ...extra,
];

/** A verified, well-described stage (4 lines) and the case's lines after. */
const verified = (id: string, extra: readonly string[] = []): string[] => [
  ...described(id, `Change the parser in src/${id} and cover the change with tests`),
  '      acceptance: ["npm test"]',
  ...extra,
];

describe("vague descriptions and unverified stages", () => {
  it("fewer than four words, a TODO or TBD marker, a long single word (shown cut to 60)", () => {
    assert.deepEqual(
      warningsOf([
        ...HEADER,
        ...described("a", "one two three", ['      acceptance: ["x"]']),
        ...described("b", "one two three four", ['      artifacts: ["x"]', "      dependencies: [a]"]),
        ...described("c", "  Implement the parser, TODO later  ", [
          "      wiring: [{source: a, pattern: b, description: d}]",
          "      dependencies: [a, b]",
        ]),
        ...described("d", "Write the tests and TBD", [
          "      wiring_tests: [{name: n, command: x}]",
          "      dependencies: [a]",
        ]),
        ...described("e", "x".repeat(70), ["      dead_code_check: {command: x}", "      dependencies: [a]"]),
        ...described("f", "Write every test in the tbd folder (todo list)", [
          "      dependencies: [a]",
          "      stage_type: knowledge",
        ]),
        ...described("g", "Read the code and write down notes", [
          "      dependencies: [a]",
          "      stage_type: knowledge-distill",
        ]),
        ...described("h", "Check the merged work of all stages", [
          "      dependencies: [a]",
          "      stage_type: integration-verify",
        ]),
      ]),
      [
        '11:20 stage "a" has a vague description ("one two three"): say what to change, where, and how to tell it is done',
        '20:20 stage "c" has a vague description ("Implement the parser, TODO later"): say what to change, where, and how to tell it is done',
        '25:20 stage "d" has a vague description ("Write the tests and TBD"): say what to change, where, and how to tell it is done',
        `30:20 stage "e" has a vague description ("${"x".repeat(60)}"): say what to change, where, and how to tell it is done`,
        '43:11 stage "h" has no acceptance criteria and no goal-backward checks (artifacts, wiring, wiring_tests, dead_code_check): nothing verifies its work',
      ],
    );
  });

  it("a description of spaces only is no description", () => {
    assert.deepEqual(warningsOf([...HEADER, ...described("a", "   ", ['      acceptance: ["x"]'])]), [
      '9:11 stage "a" has no description: the session gets only its name as the assignment',
    ]);
  });
});

describe("descriptions that are specific enough", () => {
  it("four words or more, whatever they start or end with; extra spaces do not count as words", () => {
    const stage = (id: string, description: string) => [
      ...described(id, description),
      '      acceptance: ["npm test"]',
    ];
    assert.deepEqual(
      warningsOf([
        ...HEADER,
        ...stage("a", "Wipe the stale cache before every build"),
        ...stage("b", "Why does the parser drop comments?"),
        ...stage("c", "None of the parser tests may break"),
        ...stage("d", "Change the parser, then the tests ..."),
        ...stage("e", "Fix  the   bug"),
        ...stage("integration-verify", "Run every suite on the merged work"),
      ]),
      [
        '27:20 stage "e" has a vague description ("Fix  the   bug"): say what to change, where, and how to tell it is done',
      ],
    );
  });
});

describe("parallel stages whose files overlap", () => {
  it("each overlapping pair on a level is reported at the later stage's glob", () => {
    assert.deepEqual(
      warningsOf([
        ...HEADER,
        ...verified("x", ['      files: ["src/a.ts"]']),
        ...verified("y", ['      files: ["docs/*.md"]']),
        ...verified("w"),
        ...verified("z", ['      files: ["src/*.ts", "docs/readme.md"]']),
        ...verified("integration-verify", ["      dependencies: [x, y, z, w]", '      files: ["src/**"]']),
      ]),
      [
        '27:15 stages "x" and "z" run in parallel (level 0) and both touch files matching "src/a.ts" / "src/*.ts": expect merge conflicts',
        '27:27 stages "y" and "z" run in parallel (level 0) and both touch files matching "docs/*.md" / "docs/readme.md": expect merge conflicts',
      ],
    );
  });

  /** Two parallel stages listing `m` and `n` files, the first of each the same. */
  const overlapping = (m: number, n: number): string[] => {
    const files = (count: number) =>
      `      files: [${Array.from({ length: count }, (_, i) => `f${i}.ts`).join(", ")}]`;
    return [...HEADER, ...verified("b", [files(m)]), ...verified("c", [files(n)])];
  };

  it("compares up to 200,000 pairs of globs", () => {
    assert.ok(warningsOf(overlapping(400, 500)).some((w) => w.includes('"f0.ts" / "f0.ts"')));
  });

  it("stops comparing past 200,000 pairs, so a huge plan stays fast", () => {
    assert.ok(!warningsOf(overlapping(401, 500)).some((w) => w.includes("run in parallel")));
  });
});

describe("a plan with a dependency cycle", () => {
  it("reports the cycle alone: without levels there is no overlap check", () => {
    const result = parse([
      ...HEADER,
      ...verified("a", ["      dependencies: [b]"]),
      ...verified("b", ["      dependencies: [a]"]),
      ...verified("c", ['      files: ["src/x.ts"]']),
      ...verified("d", ['      files: ["src/x.ts"]']),
    ]);
    assert.deepEqual(result.ok ? [] : result.errors.map((e) => `${e.line}:${e.column} ${e.message}`), [
      "13:22 dependency cycle: a → b → a",
    ]);
    assert.ok(!result.warnings.some((w) => w.message.includes("run in parallel")));
  });

  it("a stage that depends on itself is that error only, not also a cycle", () => {
    const result = parse([...HEADER, ...verified("a", ["      dependencies: [a]"])]);
    assert.deepEqual(result.ok ? [] : result.errors.map((e) => `${e.line}:${e.column} ${e.message}`), [
      '13:22 stage "a" depends on itself',
    ]);
  });
});
