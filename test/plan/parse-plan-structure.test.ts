import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parsePlan } from "../../src/plan/parse-plan.ts";
import type { PlanResult } from "../../src/plan/plan.ts";
import { HEADER, goodStage, planMarkdown } from "./plan-markdown.ts";

const parse = (yaml: readonly string[]): PlanResult =>
  parsePlan("doc/plans/PLAN-test.md", planMarkdown(yaml));

/** Errors and warnings as `line:column message`, and the stage ids the result carries. */
function summary(result: PlanResult): { errors: string[]; warnings: string[]; stages: string[] | undefined } {
  const show = (list: readonly { line: number; column: number; message: string }[]) =>
    list.map((d) => `${d.line}:${d.column} ${d.message}`);
  return {
    errors: result.ok ? [] : show(result.errors),
    warnings: show(result.warnings),
    stages: result.ok ? result.plan.stages.map((s) => s.id) : result.stages?.map((s) => s.id),
  };
}

const NO_VERIFY =
  "8:3 no integration-verify stage: add a last stage (stage_type: integration-verify) that checks the merged work of all stages together";

describe("dependencies", () => {
  it("a three-stage cycle is reported once, in dependency order, where it starts; errors come in file order", () => {
    const result = parse([
      ...HEADER,
      ...goodStage("a", ["c"]),
      ...goodStage("b", ["a"]),
      ...goodStage("c", ["x", "b"]),
    ]);
    assert.deepEqual(summary(result), {
      errors: ["12:22 dependency cycle: a → c → b → a", '22:22 stage "c" depends on unknown stage "x"'],
      warnings: [NO_VERIFY],
      stages: ["a", "b", "c"],
    });
  });

  it("a misspelling of the stage's own id is not suggested", () => {
    const result = parse([...HEADER, ...goodStage("build", ["buidl", "biuld"])]);
    assert.deepEqual(summary(result).errors, [
      '12:22 stage "build" depends on unknown stage "buidl"',
      '12:29 stage "build" depends on unknown stage "biuld"',
    ]);
  });
});

describe("the METADATA yaml around the stages", () => {
  it("keys next to loom are warnings, each at its key", () => {
    const result = parse(["x: 1", "y: 2", ...HEADER, ...goodStage("a")]);
    assert.ok(result.ok);
    assert.deepEqual(summary(result).warnings, [
      '6:1 unknown key "x" next to `loom:` is ignored',
      '7:1 unknown key "y" next to `loom:` is ignored',
    ]);
  });

  it("a YAML warning is shown at its place, and a loom that is not a mapping is an error at its value", () => {
    assert.deepEqual(summary(parse(["x: !foo 1", "loom: !!str 5"])), {
      errors: ["7:13 `loom:` must be a mapping with `version` and `stages`"],
      warnings: ['6:1 unknown key "x" next to `loom:` is ignored', "6:4 YAML: Unresolved tag: !foo"],
      stages: undefined,
    });
    assert.deepEqual(summary(parse(["loom: ~"])).errors, [
      "6:7 `loom:` must be a mapping with `version` and `stages`",
    ]);
  });

  it("a misspelt loom key is suggested", () => {
    assert.deepEqual(summary(parse(["lom:", "  version: 1"])), {
      errors: ["6:1 the METADATA yaml has no `loom:` key (did you mean `loom:` for `lom:`?)"],
      warnings: ['6:1 unknown key "lom" next to `loom:` is ignored'],
      stages: undefined,
    });
  });

  it("an empty stages value is not a list, and the result carries no stage", () => {
    assert.deepEqual(summary(parse(["loom:", "  version: 1", "  stages: ~"])), {
      errors: ["8:11 `stages` must be a list of stages"],
      warnings: [],
      stages: [],
    });
  });

  it("brackets are counted from depth 0, a closing one before any opening one does not give room", () => {
    const result = parse([
      ...HEADER,
      "    - id: a",
      "      name: x",
      '      files: "]"',
      `      setup: ${"[".repeat(201)}${"]".repeat(201)}`,
    ]);
    assert.deepEqual(summary(result).errors, [
      "12:214 the METADATA yaml nests brackets more than 200 levels deep",
    ]);
    const curly = parse([`loom: ${"{a: ".repeat(201)}1${"}".repeat(201)}`]);
    assert.deepEqual(summary(curly).errors, [
      "6:807 the METADATA yaml nests brackets more than 200 levels deep",
    ]);
  });

  it("an aliased stage is a duplicate located at its anchor", () => {
    const result = parse([
      "loom:",
      "  version: 1",
      "  stages:",
      '    - &s {id: a, name: A, description: "Change the parser in src/a and cover it with tests", acceptance: [x]}',
      "    - *s",
    ]);
    assert.deepEqual(summary(result), {
      errors: ['9:15 duplicate stage id "a" (first defined at line 9)'],
      warnings: [NO_VERIFY],
      stages: ["a", "a"],
    });
  });
});

describe("the stage count limit", () => {
  it("500 stages, the most loom runs in one plan, are read", () => {
    const stages = Array.from({ length: 500 }, (_, i) => [
      `    - id: s${i}`,
      `      name: S${i}`,
      "      description: Change the parser module and cover the change with tests",
      '      acceptance: ["npm test"]',
    ]).flat();
    const result = parse([...HEADER, ...stages]);
    assert.ok(result.ok, JSON.stringify(result.ok ? [] : result.errors.slice(0, 3)));
    assert.equal(result.plan.stages.length, 500);
  });
});

describe("a stage that fails the schema keeps what it declared", () => {
  it("an invalid stage_type is not guessed from the id", () => {
    const result = parse([
      ...HEADER,
      "    - id: knowledge-a",
      "      name: A",
      "      stage_type: 5",
      "      description: Knowledge base work on all the parser files",
    ]);
    assert.ok(!result.ok);
    assert.deepEqual(
      result.stages?.map((s) => [s.id, s.stage_type]),
      [["knowledge-a", "standard"]],
    );
  });

  it("a stage failing on another field still has its type guessed from its id", () => {
    const result = parse([
      ...HEADER,
      "    - id: knowledge-a",
      "      name: A",
      "      max_turns: 0",
      "      description: Knowledge base work on all the parser files",
    ]);
    assert.ok(!result.ok);
    assert.deepEqual(
      result.stages?.map((s) => [s.id, s.stage_type]),
      [["knowledge-a", "knowledge"]],
    );
    assert.deepEqual(summary(result).warnings, [], "a knowledge stage needs no acceptance");
  });
});

describe("the order of diagnostics", () => {
  it("is by line, then by column, whatever check found them", () => {
    const result = parse([
      ...HEADER,
      '    - {id: "a b", name: " ", acceptance: [x], description: "Change the parser in src/a and cover it with tests"}',
    ]);
    assert.deepEqual(summary(result).errors, [
      '9:12 stage id "a b" may contain only letters, digits, "-" and "_" (it becomes a branch name, a label and a file name)',
      '9:25 stage "a b": `name` is empty',
    ]);
  });
});

describe("the parsed plan", () => {
  it("keeps its path, and is named after the file when it has no heading", () => {
    const text = planMarkdown([...HEADER, ...goodStage("a")]).replace("# Plan: Test plan\n", "");
    const result = parsePlan("doc/plans/PLAN-nameless.md", text);
    assert.ok(result.ok);
    assert.equal(result.plan.path, "doc/plans/PLAN-nameless.md");
    assert.equal(result.plan.id, "PLAN-nameless");
    assert.equal(result.plan.name, "PLAN-nameless");
  });

  it("an invalid plan without a heading is named after its file too", () => {
    const text = planMarkdown([...HEADER, ...goodStage("a", ["ghost"])]).replace("# Plan: Test plan\n", "");
    const result = parsePlan("doc/plans/PLAN-nameless.md", text);
    assert.deepEqual(result.ok ? null : result.plan, { id: "PLAN-nameless", name: "PLAN-nameless" });
  });

  it("answers for text that is not a string with an error at 1:1, named after its file", () => {
    const result = parsePlan("doc/PLAN-x.md", 42 as unknown as string);
    assert.deepEqual(result, {
      ok: false,
      errors: [{ message: "the plan is not text", line: 1, column: 1 }],
      warnings: [],
      plan: { id: "PLAN-x", name: "PLAN-x" },
    });
  });
});
