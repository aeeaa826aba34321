import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { detectStageType } from "../../src/plan/detect-stage-type.ts";
import { parsePlan } from "../../src/plan/parse-plan.ts";
import { HEADER, goodStage, planMarkdown } from "./plan-markdown.ts";

/** Errors and warnings as `line:column message`. */
function diagnostics(yaml: readonly string[]): { errors: string[]; warnings: string[] } {
  const result = parsePlan("doc/plans/PLAN-test.md", planMarkdown(yaml));
  const show = (list: readonly { line: number; column: number; message: string }[]) =>
    list.map((d) => `${d.line}:${d.column} ${d.message}`);
  return { errors: result.ok ? [] : show(result.errors), warnings: show(result.warnings) };
}

describe("diagnostics point at the text a person wrote", () => {
  it("a stage list written once under an anchor: errors and warnings point into the anchored text", () => {
    assert.deepEqual(
      diagnostics([
        "common: &stages",
        "  - id: a",
        "    name: 5",
        "    acceptance: [x]",
        "loom:",
        "  version: 1",
        "  stages: *stages",
      ]),
      {
        errors: ['8:11 stage "a": `name` must be text, got 5'],
        warnings: [
          '6:1 unknown key "common" next to `loom:` is ignored',
          '7:9 stage "a" has no description: the session gets only its name as the assignment',
        ],
      },
    );
  });

  it("a METADATA yaml holding only a comment is an error at its start", () => {
    assert.deepEqual(diagnostics(["# only a comment"]), {
      errors: ["6:1 the METADATA yaml must be a mapping that starts with `loom:`"],
      warnings: [],
    });
  });

  it("a cycle is reported at the dependency that closes it, not the stage's first one", () => {
    assert.deepEqual(
      diagnostics([...HEADER, ...goodStage("x"), ...goodStage("a", ["x", "b"]), ...goodStage("b", ["a"])])
        .errors,
      ["17:25 dependency cycle: a → b → a"],
    );
  });

  it("a misspelt plan key next to the real one is a warning naming it under loom.", () => {
    assert.deepEqual(
      diagnostics([
        "loom:",
        "  version: 1",
        "  max_turns: 3",
        "  max_turn: 4",
        "  stages:",
        ...goodStage("a"),
      ]),
      {
        errors: [],
        warnings: ["9:3 unknown key `loom.max_turn` is kept but not used (`loom.max_turns` is set too)"],
      },
    );
  });
});

describe("detectStageType reads the name as well as the id", () => {
  const cases: [string, string, string][] = [
    ["kd", "Run knowledge-distill", "knowledge-distill"],
    ["x", "knowledge distillation", "knowledge-distill"],
    ["kb", "Build the knowledge base", "knowledge"],
    ["KNOWLEDGE-x", "x", "knowledge"],
    ["integration-verify", "Knowledge", "knowledge"],
    ["fin", "Final integration-verify", "integration-verify"],
    ["x", "INTEGRATION VERIFY all", "integration-verify"],
  ];
  for (const [id, name, type] of cases) {
    it(`${id} / ${name} → ${type}`, () => assert.equal(detectStageType(id, name), type));
  }
});
