import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { buildPlanSpec } from "../../app/engine/build-plan-spec.ts";
import { parsePlan } from "../../src/plan/parse-plan.ts";
import { runLoom } from "../cli/run-loom.ts";

/*
 * The warnings of fields loom does not honour go where a plan's author looks: `loom validate` (text
 * and GitHub annotations) and the plan check run, whose annotations come from the warnings the plan
 * spec keeps (test/app/stage-runs.test.ts follows them onto the check run).
 */
const PATH = "test/fixtures/plans/PLAN-every-field.md";
const text = readFileSync(new URL("../fixtures/plans/PLAN-every-field.md", import.meta.url), "utf8");

describe("warnings about fields loom does not honour reach the author", () => {
  const parsed = parsePlan(PATH, text);
  assert.ok(parsed.ok);
  const { warnings } = parsed;

  it("loom validate --format github annotates each at its line and column; the plan is valid", () => {
    const { code, stdout } = runLoom(["validate", "--format", "github", PATH]);
    assert.equal(code, 0, stdout);
    const annotations = stdout.split("\n").filter((line) => line.startsWith("::warning "));
    assert.deepEqual(
      annotations,
      warnings.map(
        (w) =>
          `::warning title=loom%3A PLAN-every-field,file=${PATH},line=${w.line},col=${w.column}::${w.message.replaceAll("%", "%25")}`,
      ),
    );
    assert.ok(
      annotations.some((line) =>
        line.includes(',line=106,col=9::stage "fix-parser": `sandbox.filesystem` is not enforced yet'),
      ),
    );
  });

  it("the plan spec the check run is rendered from keeps each, with its line, column and stage", () => {
    const spec = buildPlanSpec(parsed.plan, "b".repeat(40), warnings);
    assert.deepEqual(
      spec.warnings,
      warnings.map(({ message, line, column, stage }) => ({
        message,
        line,
        column,
        ...(stage ? { stage } : {}),
      })),
    );
    assert.ok(warnings.some((w) => w.stage === "fix-parser" && w.message.includes("`sandbox.filesystem`")));
    assert.ok(
      warnings.some((w) => w.stage === undefined && w.message.startsWith("`loom.sandbox.excluded_commands`")),
    );
  });
});
