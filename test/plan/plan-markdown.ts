import assert from "node:assert/strict";
import type { Diagnostic, PlanResult } from "../../src/plan/plan.ts";

/**
 * A plan file around the given yaml lines. Lines 1–5 are the heading, the METADATA marker and
 * the opening fence, so yaml line k is markdown line k + 5.
 */
export function planMarkdown(yaml: readonly string[]): string {
  return [
    "# Plan: Test plan",
    "",
    "<!-- loom METADATA -->",
    "",
    "```yaml",
    ...yaml,
    "```",
    "",
    "<!-- END loom METADATA -->",
    "",
  ].join("\n");
}

/** `loom:` / `version: 1` / `stages:` — markdown lines 6, 7, 8; the first stage starts on line 9. */
export const HEADER = ["loom:", "  version: 1", "  stages:"] as const;

/** A stage that draws no warning: 5 lines, `id` value at column 11 of its first line. */
export function goodStage(id: string, dependencies: readonly string[] = []): string[] {
  return [
    `    - id: ${id}`,
    `      name: Stage ${id}`,
    `      description: Change the parser in src/${id} and cover the change with tests`,
    `      dependencies: [${dependencies.join(", ")}]`,
    `      acceptance: ["npm test"]`,
  ];
}

/** The last stage of a plan that wants no warning: an integration-verify stage (5 lines). */
export function verifyStage(dependencies: readonly string[]): string[] {
  return goodStage("integration-verify", dependencies);
}

export function findDiagnostic(list: readonly Diagnostic[], fragment: string): Diagnostic | undefined {
  return list.find((d) => d.message.includes(fragment));
}

export function expectError(result: PlanResult, fragment: string, line: number, column: number): void {
  assert.equal(result.ok, false, "the plan should be invalid");
  if (result.ok) return;
  const found = findDiagnostic(result.errors, fragment);
  assert.ok(
    found,
    `no error containing ${JSON.stringify(fragment)} in ${JSON.stringify(result.errors, null, 2)}`,
  );
  assert.deepEqual({ line: found.line, column: found.column }, { line, column }, found.message);
}

export function expectWarning(result: PlanResult, fragment: string, line: number, column: number): void {
  const found = findDiagnostic(result.warnings, fragment);
  assert.ok(
    found,
    `no warning containing ${JSON.stringify(fragment)} in ${JSON.stringify(result.warnings, null, 2)}`,
  );
  assert.deepEqual({ line: found.line, column: found.column }, { line, column }, found.message);
}
