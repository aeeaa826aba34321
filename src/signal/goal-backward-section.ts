import type { Stage } from "../plan/plan.ts";
import { describeConditions, describeCriterion } from "./describe-criterion.ts";

/** True when the stage declares any check beyond its acceptance criteria. */
export function hasGoalBackwardChecks(stage: Stage): boolean {
  return (
    stage.artifacts.length > 0 ||
    stage.wiring.length > 0 ||
    stage.wiring_tests.length > 0 ||
    stage.dead_code_check !== undefined ||
    stage.regression_test !== undefined ||
    stage.before_stage.length > 0 ||
    stage.after_stage.length > 0
  );
}

function renderList(title: string, items: readonly string[]): string {
  return items.length === 0 ? "" : `### ${title}\n\n${items.join("\n")}\n`;
}

/** Outcome checks loom runs after the session, beyond the acceptance criteria. "" when none. */
export function renderGoalBackwardSection(stage: Stage): string {
  if (!hasGoalBackwardChecks(stage)) return "";
  const dead = stage.dead_code_check;
  const parts = [
    renderList(
      "Artifacts (must exist with a real implementation, not a stub)",
      stage.artifacts.map((a) => `- \`${a}\``),
    ),
    renderList(
      "Wiring (these patterns must match in these files)",
      stage.wiring.map((w) => `- ${w.description ?? "wired in"}: \`${w.pattern}\` in \`${w.source}\``),
    ),
    stage.regression_test === undefined
      ? ""
      : renderList("Regression Test (this stage fixes a bug: the test must exist and hold these)", [
          `- \`${stage.regression_test.file}\` contains ${(stage.regression_test.must_contain ?? []).map((p) => JSON.stringify(p)).join(", ")}`,
        ]),
    renderList(
      "Wiring Tests",
      stage.wiring_tests.map((t) => {
        const conditions = t.success_criteria === undefined ? "" : describeConditions(t.success_criteria);
        const label = t.name ?? t.description ?? "wiring test";
        return `- ${label}: \`${t.command}\`${conditions === "" ? "" : ` (${conditions})`}`;
      }),
    ),
    dead === undefined
      ? ""
      : renderList("Dead Code Check", [
          `- \`${dead.command}\` must not report ${(dead.fail_patterns ?? []).map((p) => JSON.stringify(p)).join(", ") || "warnings"}`,
        ]),
    renderList(
      "Before This Stage (true on the branch you start from)",
      stage.before_stage.map(describeCriterion),
    ),
    renderList("After This Stage (true when you are done)", stage.after_stage.map(describeCriterion)),
  ].filter((p) => p !== "");
  return `## Goal-Backward Checks\n\nloom also verifies these outcomes after you stop:\n\n${parts.join("\n")}`;
}
