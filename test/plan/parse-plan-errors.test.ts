import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parsePlan } from "../../src/plan/parse-plan.ts";
import { HEADER, expectError, goodStage, planMarkdown } from "./plan-markdown.ts";

/** A stage with no acceptance line, so a case can add its own (`id` on line 9 when first). */
const bareStage = (id: string): string[] => [
  `    - id: ${id}`,
  `      name: Stage ${id}`,
  `      description: Change the parser in src/${id} and cover the change with tests`,
];

type Case = { name: string; yaml: readonly string[]; fragment: string; line: number; column: number };

const cases: Case[] = [
  {
    name: "version other than 1",
    yaml: ["loom:", "  version: 2", "  stages:", ...goodStage("a")],
    fragment: "unsupported version 2",
    line: 7,
    column: 12,
  },
  {
    name: "no version",
    yaml: ["loom:", "  stages:", ...goodStage("a")],
    fragment: "has no `version`",
    line: 6,
    column: 1,
  },
  {
    name: "empty stage list",
    yaml: ["loom:", "  version: 1", "  stages: []"],
    fragment: "the plan has no stages",
    line: 8,
    column: 3,
  },
  {
    name: "no stage list",
    yaml: ["loom:", "  version: 1"],
    fragment: "has no `stages` list",
    line: 6,
    column: 1,
  },
  {
    name: "stages not a list",
    yaml: ["loom:", "  version: 1", "  stages: {a: 1}"],
    fragment: "`stages` must be a list",
    line: 8,
    column: 11,
  },
  {
    name: "the METADATA yaml is a list",
    yaml: ["- a", "- b"],
    fragment: "must be a mapping that starts with `loom:`",
    line: 6,
    column: 1,
  },
  { name: "no loom key", yaml: ["other: 1"], fragment: "has no `loom:` key", line: 6, column: 1 },
  { name: "loom is a number", yaml: ["loom: 5"], fragment: "`loom:` must be a mapping", line: 6, column: 7 },
  {
    name: "wrong plan-level type",
    yaml: ["loom:", "  version: 1", "  auto_merge: maybe", "  stages:", ...goodStage("a")],
    fragment: '`loom.auto_merge` must be true or false, got "maybe"',
    line: 8,
    column: 15,
  },
  {
    name: "a stage that is not a mapping",
    yaml: [...HEADER, "    - just a string"],
    fragment: "stage #1 must be a mapping",
    line: 9,
    column: 7,
  },
  {
    name: "a numeric id",
    yaml: [...HEADER, "    - id: 42", "      name: x"],
    fragment: "stage #1: `id` must be text, got 42",
    line: 9,
    column: 11,
  },
  {
    name: "a stage without name",
    yaml: [...HEADER, "    - id: a", '      acceptance: ["x"]'],
    fragment: 'stage "a": `name` is required',
    line: 9,
    column: 7,
  },
  {
    name: "an empty name",
    yaml: [...HEADER, "    - id: a", '      name: ""', '      acceptance: ["x"]'],
    fragment: "`name` is empty",
    line: 10,
    column: 13,
  },
  {
    name: "dependencies as a string",
    yaml: [...HEADER, ...bareStage("a"), "      dependencies: b"],
    fragment: '`dependencies` must be a list, got "b" (write [b] for a list of one)',
    line: 12,
    column: 21,
  },
  {
    name: "an unknown reasoning effort",
    yaml: [...HEADER, ...goodStage("a"), "      reasoning_effort: ultra"],
    fragment: '`reasoning_effort` must be one of low, medium, high, xhigh, max, got "ultra"',
    line: 14,
    column: 25,
  },
  {
    name: "an acceptance entry of the wrong shape",
    yaml: [...HEADER, ...bareStage("a"), "      acceptance:", "        - command: 5"],
    fragment: "`acceptance[0].command` must be text, got 5",
    line: 13,
    column: 20,
  },
  {
    name: "an id with a space",
    yaml: [...HEADER, "    - id: a b", "      name: x"],
    fragment: 'stage id "a b" may contain only letters',
    line: 9,
    column: 11,
  },
  {
    name: "an id with ../",
    yaml: [...HEADER, "    - id: ../etc/passwd", "      name: x"],
    fragment: 'stage id "../etc/passwd" may contain only',
    line: 9,
    column: 11,
  },
  {
    name: "an id of 129 characters",
    yaml: [...HEADER, `    - id: ${"a".repeat(129)}`, "      name: x"],
    fragment: "is 129 characters; the limit is 128",
    line: 9,
    column: 11,
  },
  {
    name: "a reserved id",
    yaml: [...HEADER, ...goodStage("CON")],
    fragment: 'stage id "CON" is a reserved name',
    line: 9,
    column: 11,
  },
  {
    name: "an id starting NN-",
    yaml: [...HEADER, ...goodStage("01-setup")],
    fragment: 'starts with "NN-"',
    line: 9,
    column: 11,
  },
  {
    name: "an id too long for a label",
    yaml: [...HEADER, ...goodStage("x".repeat(40))],
    fragment: "50-character limit; use at most 39",
    line: 9,
    column: 11,
  },
  {
    name: "a duplicate id",
    yaml: [...HEADER, ...goodStage("a"), ...goodStage("a")],
    fragment: 'duplicate stage id "a" (first defined at line 9)',
    line: 14,
    column: 11,
  },
  {
    name: "ids differing in case",
    yaml: [...HEADER, ...goodStage("a"), ...goodStage("A")],
    fragment: 'differs from "a" (line 9) only in letter case',
    line: 14,
    column: 11,
  },
  {
    name: "an unknown dependency",
    yaml: [...HEADER, ...goodStage("a", ["ghost"])],
    fragment: 'depends on unknown stage "ghost"',
    line: 12,
    column: 22,
  },
  {
    name: "a dependency in the wrong case",
    yaml: [...HEADER, ...goodStage("a"), ...goodStage("b", ["A"])],
    fragment: '(did you mean "a"?)',
    line: 17,
    column: 22,
  },
  {
    name: "a self dependency",
    yaml: [...HEADER, ...goodStage("a", ["a"])],
    fragment: 'stage "a" depends on itself',
    line: 12,
    column: 22,
  },
  {
    name: "a two-stage cycle",
    yaml: [...HEADER, ...goodStage("a", ["b"]), ...goodStage("b", ["a"])],
    fragment: "dependency cycle: a → b → a",
    line: 12,
    column: 22,
  },
  {
    name: "an absolute files glob",
    yaml: [...HEADER, ...goodStage("a"), '      files: ["/etc/passwd"]'],
    fragment: '`files` entry "/etc/passwd" must be relative',
    line: 14,
    column: 15,
  },
  {
    name: "a home-relative files glob",
    yaml: [...HEADER, ...goodStage("a"), '      files: ["~/.ssh/*"]'],
    fragment: "must be relative to the repository",
    line: 14,
    column: 15,
  },
  {
    name: "a working_dir outside the repository",
    yaml: [...HEADER, ...goodStage("a"), '      working_dir: "../elsewhere"'],
    fragment: '`working_dir` "../elsewhere" leaves the repository',
    line: 14,
    column: 20,
  },
  {
    name: "an artifact climbing out of the repository",
    yaml: [...HEADER, ...goodStage("a"), '      artifacts: ["src/../../x"]'],
    fragment: '`artifacts` entry "src/../../x" leaves the repository',
    line: 14,
    column: 19,
  },
  {
    name: "a files glob climbing out of working_dir's parent",
    yaml: [...HEADER, ...goodStage("a"), "      working_dir: loom", '      files: ["../../x"]'],
    fragment: 'leaves the repository through ".." (from working_dir "loom")',
    line: 15,
    column: 15,
  },
  {
    name: "an absolute wiring source",
    yaml: [
      ...HEADER,
      ...goodStage("a"),
      "      wiring:",
      '        - source: "/abs/x.rs"',
      '          pattern: "foo"',
      "          description: d",
    ],
    fragment: '`wiring` source "/abs/x.rs" must be relative',
    line: 15,
    column: 19,
  },
  {
    name: "an invalid wiring regex",
    yaml: [
      ...HEADER,
      ...goodStage("a"),
      "      wiring:",
      '        - source: "src/x.rs"',
      '          pattern: "foo(("',
      "          description: d",
    ],
    fragment: "wiring #1 has an invalid regex pattern",
    line: 16,
    column: 20,
  },
  {
    name: "an acceptance command over 1024 characters",
    yaml: [...HEADER, ...bareStage("a"), "      acceptance:", `        - "${"x".repeat(1025)}"`],
    fragment: "acceptance #1 command is 1025 characters; the limit is 1024",
    line: 13,
    column: 11,
  },
  {
    name: "an acceptance command with a control character",
    yaml: [...HEADER, ...bareStage("a"), "      acceptance:", '        - "echo \\a"'],
    fragment: "control character (U+0007) at position 6",
    line: 13,
    column: 11,
  },
  {
    name: "an empty acceptance command",
    yaml: [...HEADER, ...bareStage("a"), "      acceptance:", '        - "  "'],
    fragment: "acceptance #1 has an empty command",
    line: 13,
    column: 11,
  },
  {
    name: "an extended acceptance check with a control character",
    yaml: [
      ...HEADER,
      ...bareStage("a"),
      "      acceptance:",
      '        - command: "ls \\x1b[0m"',
      "          exit_code: 0",
    ],
    fragment: "acceptance #1 command contains a control character (U+001B)",
    line: 13,
    column: 20,
  },
  {
    name: "a YAML syntax error",
    yaml: [...HEADER, "    - id: [unclosed", "      name: x"],
    fragment: "YAML syntax:",
    line: 10,
    column: 7,
  },
  {
    name: "a duplicate YAML key",
    yaml: [...HEADER, ...goodStage("a"), "      name: again"],
    fragment: "Map keys must be unique",
    line: 14,
    column: 7,
  },
  {
    name: "brackets nested 300 deep",
    yaml: [`loom: ${"[".repeat(300)}`],
    fragment: "nests brackets more than 200 levels deep",
    line: 6,
    column: 207,
  },
  {
    name: "an empty yaml block",
    yaml: [],
    fragment: "the loom METADATA yaml block is empty",
    line: 6,
    column: 1,
  },
];

describe("parsePlan reports each error at its line and column in the markdown", () => {
  for (const { name, yaml, fragment, line, column } of cases) {
    it(`${name} → ${line}:${column}`, () => {
      expectError(parsePlan("doc/plans/PLAN-test.md", planMarkdown(yaml)), fragment, line, column);
    });
  }

  it("more than 500 stages → the stage list", () => {
    const stages = Array.from({ length: 501 }, (_, i) => [`    - id: s${i}`, `      name: S${i}`]).flat();
    expectError(
      parsePlan("PLAN-big.md", planMarkdown([...HEADER, ...stages])),
      "the plan has 501 stages; loom runs at most 500",
      8,
      3,
    );
  });

  it("a plan id that cannot be part of a branch name → the file", () => {
    const result = parsePlan("doc/plans/PLAN my plan.md", planMarkdown([...HEADER, ...goodStage("a")]));
    expectError(result, 'plan id "PLAN my plan" (the file name) cannot be part of a branch name', 1, 1);
  });
});

describe("positions in CRLF files", () => {
  it("are the same lines and columns as in the LF file", () => {
    const text = planMarkdown([...HEADER, ...goodStage("a", ["ghost"])]).replaceAll("\n", "\r\n");
    expectError(parsePlan("PLAN-crlf.md", text), 'depends on unknown stage "ghost"', 12, 22);
  });
});

describe("a literal wiring pattern", () => {
  it("is plain text, so regex syntax in it is no error", () => {
    const yaml = [
      ...HEADER,
      ...goodStage("a"),
      "      wiring:",
      '        - source: "src/x.rs"',
      '          pattern: "foo(("',
      "          literal: true",
      "          description: d",
    ];
    const result = parsePlan("PLAN-literal.md", planMarkdown(yaml));
    assert.ok(result.ok, JSON.stringify(result.ok ? [] : result.errors));
  });
});

describe("a plan without a readable METADATA block", () => {
  const text = (body: string) => `# Plan: X\n\nSome prose.\n${body}`;
  const cases = [
    {
      name: "no marker at all",
      body: "More prose.\n",
      fragment: "no loom METADATA block",
      line: 1,
      column: 1,
    },
    {
      name: "no END marker",
      body: "<!-- loom METADATA -->\n```yaml\nloom: {}\n```\n",
      fragment: 'has no "<!-- END loom METADATA -->" marker',
      line: 4,
      column: 1,
    },
    {
      name: "no yaml fence",
      body: "<!-- loom METADATA -->\nloom: {}\n<!-- END loom METADATA -->\n",
      fragment: "has no ```yaml fence",
      line: 4,
      column: 1,
    },
    {
      name: "an unclosed fence",
      body: "<!-- loom METADATA -->\n\n  ````yaml\nloom: {}\n```\n<!-- END loom METADATA -->\n",
      fragment: "is never closed with ````",
      line: 6,
      column: 3,
    },
  ];
  for (const { name, body, fragment, line, column } of cases) {
    it(`${name} → ${line}:${column}`, () => {
      const result = parsePlan("PLAN-x.md", text(body));
      expectError(result, fragment, line, column);
      assert.ok(!result.ok && result.plan?.name === "X", "the plan keeps its name");
    });
  }
});

describe("parsePlan collects every error in one pass", () => {
  it("reports a bad version, a bad id, an unknown dependency, a long command and a bad path together", () => {
    const yaml = [
      "loom:",
      "  version: 3",
      "  stages:",
      ...goodStage("a b"),
      ...goodStage("c", ["ghost"]),
      ...bareStage("d"),
      "      acceptance:",
      `        - "${"y".repeat(2000)}"`,
      '      files: ["/abs"]',
    ];
    const result = parsePlan("PLAN-many.md", planMarkdown(yaml));
    assert.equal(result.ok, false);
    if (result.ok) return;
    const fragments = [
      "unsupported version 3",
      'stage id "a b"',
      'unknown stage "ghost"',
      "2000 characters",
      '"/abs" must be relative',
    ];
    for (const fragment of fragments)
      assert.ok(
        result.errors.some((e) => e.message.includes(fragment)),
        fragment,
      );
    const positions = result.errors.map((e) => e.line * 10_000 + e.column);
    assert.deepEqual(
      positions,
      [...positions].sort((x, y) => x - y),
      "errors come in file order",
    );
  });

  it("still returns the stages that parsed, so a cycle's stages can be shown", () => {
    const result = parsePlan(
      "PLAN-cycle.md",
      planMarkdown([...HEADER, ...goodStage("a", ["b"]), ...goodStage("b", ["a"])]),
    );
    assert.equal(result.ok, false);
    assert.deepEqual(result.ok ? [] : result.stages?.map((s) => s.id), ["a", "b"]);
  });
});
