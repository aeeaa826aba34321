import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parsePlan } from "../../src/plan/parse-plan.ts";
import type { PlanResult } from "../../src/plan/plan.ts";
import { HEADER, expectError, goodStage, planMarkdown } from "./plan-markdown.ts";

function errorsOf(result: PlanResult): string[] {
  assert.equal(result.ok, false);
  return result.ok ? [] : result.errors.map((e) => `${e.line}:${e.column} ${e.message}`);
}

describe("malformed and hostile plans give located errors and never throw", () => {
  it("refuses a 2 MiB file without parsing it", () => {
    const text = planMarkdown([...HEADER, ...goodStage("a")]) + "x".repeat(2 * 1024 * 1024);
    expectError(parsePlan("PLAN-huge.md", text), "larger than 1048576 bytes", 1, 1);
  });

  it("counts bytes, not characters: 400,000 three-byte characters are over 1 MiB", () => {
    const text = planMarkdown([...HEADER, ...goodStage("a")]) + "€".repeat(400_000);
    assert.ok(text.length < 1024 * 1024);
    expectError(parsePlan("PLAN-euro.md", text), "larger than 1048576 bytes", 1, 1);
  });

  it("refuses 10,000 stages at the stage list", () => {
    const stages = Array.from({ length: 10_000 }, (_, i) => [
      `    - id: s${i}`,
      `      name: S${i}`,
      `      dependencies: [${i > 0 ? `s${i - 1}` : ""}]`,
    ]).flat();
    const result = parsePlan("PLAN-many.md", planMarkdown([...HEADER, ...stages]));
    expectError(result, "the plan has 10000 stages; loom runs at most 500", 8, 3);
    assert.equal(errorsOf(result).length, 1, "one error, not one per stage");
  });

  it("refuses a billion-laughs alias bomb", () => {
    const yaml = [
      "a: &a [x, x, x, x, x, x, x, x, x, x]",
      "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]",
      "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]",
      "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]",
      "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]",
      "loom: {version: 1, stages: [*e]}",
    ];
    expectError(parsePlan("PLAN-bomb.md", planMarkdown(yaml)), "YAML aliases expand too much", 6, 1);
  });

  it("allows a few aliases, as real plans use them for shared acceptance lists", () => {
    const yaml = [
      ...HEADER,
      ...goodStage("a"),
      "      setup: &setup [npm ci]",
      ...goodStage("b", ["a"]),
      "      setup: *setup",
      ...goodStage("integration-verify", ["b"]),
    ];
    const result = parsePlan("PLAN-alias.md", planMarkdown(yaml));
    assert.ok(result.ok, JSON.stringify(result.ok ? [] : result.errors));
    assert.deepEqual(result.plan.stages[1]?.setup, ["npm ci"]);
  });

  it("refuses 100,000 nested brackets before the YAML parser can overflow its stack", () => {
    const yaml = [`loom: ${"[".repeat(100_000)}${"]".repeat(100_000)}`];
    expectError(
      parsePlan("PLAN-deep.md", planMarkdown(yaml)),
      "nests brackets more than 200 levels deep",
      6,
      207,
    );
  });

  it("reads 1,000 levels of block nesting without trouble", () => {
    const yaml = ["loom:", ...Array.from({ length: 1000 }, (_, i) => `${" ".repeat(i + 2)}k${i}:`)];
    const result = parsePlan("PLAN-nest.md", planMarkdown(yaml));
    assert.equal(result.ok, false);
  });

  it("reports ../ in ids, dependencies and paths, each at its place", () => {
    const yaml = [
      ...HEADER,
      "    - id: ../../x",
      "      name: X",
      "      dependencies: [../y]",
      '      files: ["../z"]',
    ];
    const errors = errorsOf(parsePlan("PLAN-dots.md", planMarkdown(yaml)));
    assert.deepEqual(errors, [
      '9:11 stage id "../../x" may contain only letters, digits, "-" and "_" (it becomes a branch name, a label and a file name)',
      '11:22 stage "../../x" depends on unknown stage "../y"',
      '12:15 stage "../../x": `files` entry "../z" leaves the repository through ".."',
    ]);
  });

  it("reports every YAML syntax error of a broken block, and nothing else", () => {
    const result = parsePlan(
      "PLAN-broken.md",
      planMarkdown(["loom:", "  version: 1", "  stages: [", "    - id: a"]),
    );
    const errors = errorsOf(result);
    assert.ok(errors.length >= 1);
    assert.ok(
      errors.every((e) => e.includes("YAML syntax")),
      errors.join("\n"),
    );
  });

  it("answers for input that is not text at all", () => {
    const result = parsePlan("PLAN-x.md", undefined as unknown as string);
    assert.equal(result.ok, false);
  });
});
