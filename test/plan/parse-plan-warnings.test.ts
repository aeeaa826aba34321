import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parsePlan } from "../../src/plan/parse-plan.ts";
import type { PlanResult } from "../../src/plan/plan.ts";
import {
  HEADER,
  expectWarning,
  findDiagnostic,
  goodStage,
  planMarkdown,
  verifyStage,
} from "./plan-markdown.ts";

const parse = (yaml: readonly string[]): PlanResult =>
  parsePlan("doc/plans/PLAN-test.md", planMarkdown(yaml));

function expectValid(result: PlanResult): void {
  assert.ok(result.ok, `expected a valid plan, got ${JSON.stringify(result.ok ? [] : result.errors)}`);
}

type Case = { name: string; yaml: readonly string[]; fragment: string; line: number; column: number };

const cases: Case[] = [
  {
    name: "an unknown stage key",
    yaml: [...HEADER, ...goodStage("a"), "      truths: [x]"],
    fragment: 'stage "a": unknown key `truths` is kept but not used',
    line: 14,
    column: 7,
  },
  {
    name: "an unknown key in an acceptance check",
    yaml: [
      ...HEADER,
      "    - id: a",
      "      name: A",
      "      description: Change the parser in src/a and cover the change with tests",
      "      acceptance:",
      "        - command: npm test",
      "          expect_output: ok",
    ],
    fragment: 'stage "a": unknown key `acceptance[0].expect_output` is kept but not used',
    line: 14,
    column: 11,
  },
  {
    name: "an unknown key in a wiring test's success criteria",
    yaml: [
      ...HEADER,
      ...goodStage("a"),
      "      wiring_tests:",
      "        - command: ./run",
      "          success_criteria: {exit_code: 0, stdout_matches: x}",
    ],
    fragment: "unknown key `wiring_tests[0].success_criteria.stdout_matches`",
    line: 16,
    column: 44,
  },
  {
    name: "an unknown plan key",
    yaml: ["loom:", "  version: 1", "  plan_id: x", "  stages:", ...goodStage("a")],
    fragment: "unknown key `loom.plan_id`",
    line: 8,
    column: 3,
  },
  {
    name: "a key next to loom",
    yaml: ["extra: 1", ...HEADER, ...goodStage("a")],
    fragment: 'unknown key "extra" next to `loom:`',
    line: 6,
    column: 1,
  },
  {
    name: "codex implementers",
    yaml: [...HEADER, ...goodStage("a"), '      implementers: ["codex", "claude"]'],
    fragment: "`implementers: [codex, claude]` is ignored here",
    line: 14,
    column: 7,
  },
  {
    name: "an execution backend",
    yaml: [...HEADER, ...goodStage("a"), "      execution_backend: container"],
    fragment: "`execution_backend` is ignored here",
    line: 14,
    column: 7,
  },
  {
    name: "a plan-level change_impact without failure patterns",
    yaml: [
      "loom:",
      "  version: 1",
      "  change_impact: {baseline_command: make test}",
      "  stages:",
      ...goodStage("a"),
    ],
    fragment: "change_impact has no failure_patterns",
    line: 8,
    column: 3,
  },
  {
    name: "a stage with nothing that verifies it",
    yaml: [
      ...HEADER,
      "    - id: a",
      "      name: A",
      "      description: Change the parser in src/a and cover the change with tests",
    ],
    fragment: 'stage "a" has no acceptance criteria and no goal-backward checks',
    line: 9,
    column: 11,
  },
  {
    name: "a vague description",
    yaml: [
      ...HEADER,
      "    - id: a",
      "      name: A",
      "      description: Fix stuff",
      '      acceptance: ["npm test"]',
    ],
    fragment: 'stage "a" has a vague description ("Fix stuff")',
    line: 11,
    column: 20,
  },
  {
    name: "a placeholder description",
    yaml: [
      ...HEADER,
      "    - id: a",
      "      name: A",
      "      description: TODO",
      '      acceptance: ["npm test"]',
    ],
    fragment: "vague description",
    line: 11,
    column: 20,
  },
  {
    name: "no description",
    yaml: [...HEADER, "    - id: a", "      name: A", '      acceptance: ["npm test"]'],
    fragment: 'stage "a" has no description',
    line: 9,
    column: 11,
  },
  {
    name: "two stages without integration-verify",
    yaml: [...HEADER, ...goodStage("a"), ...goodStage("b", ["a"])],
    fragment: "no integration-verify stage",
    line: 8,
    column: 3,
  },
  {
    name: "parallel stages with overlapping files",
    yaml: [
      ...HEADER,
      ...goodStage("a"),
      ...goodStage("b", ["a"]),
      '      files: ["src/**/*.ts"]',
      ...goodStage("c", ["a"]),
      '      files: ["docs/*.md", "src/api/*.ts"]',
      ...verifyStage(["b", "c"]),
    ],
    fragment:
      'stages "b" and "c" run in parallel (level 1) and both touch files matching "src/**/*.ts" / "src/api/*.ts"',
    line: 25,
    column: 28,
  },
];

describe("parsePlan reports each warning at its line and column, and the plan stays valid", () => {
  for (const { name, yaml, fragment, line, column } of cases) {
    it(`${name} → ${line}:${column}`, () => {
      const result = parse(yaml);
      expectValid(result);
      expectWarning(result, fragment, line, column);
    });
  }

  it("a plan without a heading → the file, named after the file", () => {
    const result = parsePlan(
      "doc/PLAN-nameless.md",
      planMarkdown([...HEADER, ...goodStage("a")]).replace("# Plan: Test plan\n", "\n"),
    );
    expectValid(result);
    expectWarning(result, 'the plan has no "# " heading', 1, 1);
    assert.equal(result.ok && result.plan.name, "PLAN-nameless");
  });
});

describe("plans that draw no warning", () => {
  it("a verified, described plan ending in integration-verify has no warnings", () => {
    const result = parse([...HEADER, ...goodStage("a"), ...goodStage("b", ["a"]), ...verifyStage(["b"])]);
    expectValid(result);
    assert.deepEqual(result.warnings, []);
  });

  it("overlapping files on different levels are fine (the later stage starts from the merged work)", () => {
    const result = parse([
      ...HEADER,
      ...goodStage("a"),
      '      files: ["src/**"]',
      ...goodStage("b", ["a"]),
      '      files: ["src/x.ts"]',
      ...verifyStage(["b"]),
    ]);
    expectValid(result);
    assert.equal(findDiagnostic(result.warnings, "run in parallel"), undefined);
  });

  it("parallel stages with disjoint files draw no overlap warning", () => {
    const yaml = [
      ...HEADER,
      ...goodStage("a"),
      '      files: ["src/frontend/*.rs"]',
      ...goodStage("b"),
      '      files: ["src/backend/*.rs"]',
      ...verifyStage(["a", "b"]),
    ];
    const result = parse(yaml);
    expectValid(result);
    assert.deepEqual(result.warnings, []);
  });

  it("knowledge stages need no acceptance, and goal-backward checks count as verification", () => {
    const yaml = [
      ...HEADER,
      "    - id: knowledge-bootstrap",
      "      name: Knowledge Bootstrap",
      "      description: Read the code base and write down how the parser is wired today",
      "    - id: build",
      "      name: Build",
      "      description: Change the parser in src/parser and cover the change with tests",
      "      dependencies: [knowledge-bootstrap]",
      '      artifacts: ["src/parser/*.ts"]',
      ...verifyStage(["build"]),
    ];
    const result = parse(yaml);
    expectValid(result);
    assert.deepEqual(result.warnings, []);
  });
});

describe("the parsed plan", () => {
  it("defaults working_dir to '.', detects stage types from ids and names, and keeps a declared type", () => {
    const yaml = [
      ...HEADER,
      "    - id: knowledge-bootstrap",
      "      name: Learn",
      "      description: Read the code base and write down how the parser is wired today",
      "    - id: build",
      "      name: Build",
      "      description: Change the parser in src/parser and cover the change with tests",
      "      dependencies: [knowledge-bootstrap]",
      '      acceptance: ["npm test", {command: "npm run lint", exit_code: 0}]',
      "      working_dir: app",
      "    - id: final-check",
      "      name: Integration Verify",
      "      description: Run every test suite against the merged work of all stages",
      "      dependencies: [build]",
      '      acceptance: ["npm test"]',
      "    - id: knowledge-distill",
      "      name: Knowledge distill",
      "      stage_type: standard",
      "      description: Curate what the stages learned into the knowledge base files",
      "      dependencies: [final-check]",
      '      acceptance: ["true"]',
    ];
    const result = parse(yaml);
    expectValid(result);
    if (!result.ok) return;
    assert.deepEqual(
      result.plan.stages.map((s) => [s.id, s.stage_type, s.working_dir]),
      [
        ["knowledge-bootstrap", "knowledge", "."],
        ["build", "standard", "app"],
        ["final-check", "integration-verify", "."],
        ["knowledge-distill", "standard", "."],
      ],
    );
    assert.deepEqual(result.plan.stages[1]?.acceptance, [
      "npm test",
      { command: "npm run lint", exit_code: 0 },
    ]);
    assert.equal(result.plan.id, "PLAN-test");
    assert.equal(result.plan.name, "Test plan");
    assert.equal(result.plan.metadata.version, 1);
    assert.equal(result.plan.metadata.stages, result.plan.stages);
  });

  it("keeps unknown keys on the stage for whoever wants them", () => {
    const result = parse([...HEADER, ...goodStage("a"), "      truths: [x]"]);
    expectValid(result);
    assert.deepEqual(result.ok && result.plan.stages[0]?.["truths"], ["x"]);
  });
});
