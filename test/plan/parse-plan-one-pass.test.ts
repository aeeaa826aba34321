import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { stringify } from "yaml";
import { parsePlan } from "../../src/plan/parse-plan.ts";
import { LoomMetadata, Stage } from "../../src/plan/plan.ts";
import type { PlanResult } from "../../src/plan/plan.ts";
import { HEADER, expectError, goodStage, planMarkdown } from "./plan-markdown.ts";

const parse = (yaml: readonly string[]): PlanResult =>
  parsePlan("doc/plans/PLAN-test.md", planMarkdown(yaml));

describe("a stage that fails the schema still gets every other check", () => {
  it("its unknown dependency, a cycle through it and its unsafe path are reported with its bad field", () => {
    const yaml = [
      ...HEADER,
      ...goodStage("a", ["b"]),
      "    - id: b",
      "      name: Stage b",
      "      max_turns: -3",
      "      dependencies: [a, ghost]",
      '      files: ["/etc/passwd"]',
    ];
    const result = parse(yaml);
    expectError(result, 'stage "b": `max_turns` must be a positive whole number, got -3', 16, 18);
    expectError(result, 'stage "b" depends on unknown stage "ghost"', 17, 25);
    expectError(result, "dependency cycle: a → b → a", 12, 22);
    expectError(result, '`files` entry "/etc/passwd" must be relative', 18, 15);
    assert.deepEqual(result.ok ? [] : result.stages?.map((s) => s.id), ["a", "b"], "both stages are shown");
  });

  it("a stage with no name is still in the graph", () => {
    const yaml = [...HEADER, ...goodStage("a", ["b"]), "    - id: b", "      dependencies: [a]"];
    const result = parse(yaml);
    expectError(result, 'stage "b": `name` is required', 14, 7);
    expectError(result, "dependency cycle: a → b → a", 12, 22);
  });

  it("a bad plan-level setting does not hide the stage checks", () => {
    const yaml = ["loom:", "  version: 1", "  max_turns: 0", "  stages:", ...goodStage("a", ["ghost"])];
    const result = parse(yaml);
    expectError(result, "`loom.max_turns` must be a positive whole number, got 0", 8, 14);
    expectError(result, 'depends on unknown stage "ghost"', 13, 22);
  });
});

/** Words of zod's own messages that must never reach a user. */
const ZOD_WORDING = /Invalid (input|option)|Too (small|big)|received|expected \w+ to be|nonoptional/;

describe("schema errors are plain sentences naming the field, never zod's wording", () => {
  const jsonValue = fc.oneof(
    fc.string({ maxLength: 8 }),
    fc.integer({ min: -5, max: 500 }),
    fc.double({ noNaN: true, noDefaultInfinity: true, min: -5, max: 5 }),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 4 }), fc.constant(null)), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom("command", "pattern", "x"), fc.oneof(fc.integer(), fc.boolean())),
  );

  it("for any value in any stage field", () => {
    const fields = Object.keys(Stage.shape).filter((key) => key !== "id");
    fc.assert(
      fc.property(fc.constantFrom(...fields), jsonValue, (field, value) => {
        const stage: Record<string, unknown> = { id: "a", name: "A", [field]: value };
        const yaml = stringify({ loom: { version: 1, stages: [stage] } })
          .trimEnd()
          .split("\n");
        const result = parse(yaml);
        for (const error of result.ok ? [] : result.errors) {
          assert.doesNotMatch(error.message, ZOD_WORDING);
          if (error.message.includes("must be") || error.message.includes("is required"))
            assert.match(error.message, new RegExp(`^stage "a": \`${field}[\`.[]`));
        }
      }),
      { numRuns: 300 },
    );
  });

  it("for any value in any plan-level field", () => {
    const fields = Object.keys(LoomMetadata.shape).filter((key) => key !== "version" && key !== "stages");
    fc.assert(
      fc.property(fc.constantFrom(...fields), jsonValue, (field, value) => {
        const loom = { version: 1, [field]: value, stages: [{ id: "a", name: "A" }] };
        const result = parse(stringify({ loom }).trimEnd().split("\n"));
        for (const error of result.ok ? [] : result.errors) assert.doesNotMatch(error.message, ZOD_WORDING);
      }),
      { numRuns: 200 },
    );
  });
});
