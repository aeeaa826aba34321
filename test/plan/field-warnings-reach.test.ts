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
  it("loom validate --format github annotates each at its line and column; the plan is valid", () => {
    const { code, stdout } = runLoom(["validate", "--format", "github", PATH]);
    assert.equal(code, 0, stdout);
    const annotations = stdout.split("\n").filter((line) => line.startsWith("::warning "));
    assert.equal(annotations.length, 13, stdout);
    assert.ok(
      annotations.includes(
        `::warning title=loom%3A PLAN-every-field,file=${PATH},line=13,col=3::\`loom.auto_merge: false\` is not honoured yet: loom merges a passed stage into the pull request's branch itself, without waiting for a person`,
      ),
      stdout,
    );
    assert.ok(
      annotations.some((line) =>
        line.includes(',line=101,col=7::stage "fix-parser": `sandbox` is not enforced yet'),
      ),
    );
  });

  it("the plan spec the check run is rendered from keeps each, with its line, column and stage", () => {
    const result = parsePlan(PATH, text);
    assert.ok(result.ok);
    const spec = buildPlanSpec(result.plan, "b".repeat(40), result.warnings);
    assert.deepEqual(
      spec.warnings?.map((w) => `${w.line}:${w.column} ${w.stage ?? "plan"}`),
      [
        "13:3 plan",
        "14:3 plan",
        "32:3 plan",
        "37:3 plan",
        "59:7 fix-parser",
        "61:7 fix-parser",
        "101:7 fix-parser",
        "119:7 fix-parser",
        "121:7 fix-parser",
        "126:7 fix-parser",
        "127:7 fix-parser",
        "128:7 fix-parser",
        "144:7 integration-verify",
      ],
    );
  });
});
