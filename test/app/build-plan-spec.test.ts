import assert from "node:assert/strict";
import { test } from "node:test";
import { buildPlanSpec } from "../../app/engine/build-plan-spec.ts";
import { parsePlan } from "../../src/plan/parse-plan.ts";
import type { Diagnostic } from "../../src/plan/plan.ts";
import { DIAMOND_PLAN, PLAN_PATH } from "./loom-harness.ts";

/* What of a parsed plan the orchestrator keeps in its state: the schedule and bounded warnings. */

function diamond() {
  const parsed = parsePlan(PLAN_PATH, DIAMOND_PLAN);
  assert.ok(parsed.ok);
  return parsed.plan;
}

test("the spec carries the plan's id, name, path, blob and each stage's id, name, dependencies and type", () => {
  const plan = diamond();
  const spec = buildPlanSpec(plan, "b".repeat(40));
  assert.deepEqual(
    { id: spec.id, name: spec.name, path: spec.path, blobSha: spec.blobSha },
    { id: plan.id, name: plan.name, path: plan.path, blobSha: "b".repeat(40) },
  );
  assert.deepEqual(
    spec.stages.map(({ definition, ...rest }) => (assert.match(definition ?? "", /^[0-9a-f]{16}$/), rest)),
    plan.stages.map((stage) => ({
      id: stage.id,
      name: stage.name,
      dependencies: stage.dependencies,
      stageType: stage.stage_type,
      ...(stage.acceptance.length === 0 ? {} : { acceptanceCount: stage.acceptance.length }),
      ...(stage.files.length === 0 ? {} : { files: stage.files }),
    })),
  );
  assert.ok(spec.stages.some((stage) => stage.dependencies.length > 0));
  const [first] = spec.stages;
  assert.notEqual(
    first?.dependencies,
    plan.stages[0]?.dependencies,
    "a copy: the state never shares the parse's arrays",
  );
  assert.equal("warnings" in spec, false, "no warnings, no field");
});

test("each stage's definition digest changes with any field of that stage, and only with its own", () => {
  const before = buildPlanSpec(diamond(), "b".repeat(40));
  const edited = parsePlan(
    PLAN_PATH,
    DIAMOND_PLAN.replace("      name: Left\n", '      name: Left\n      setup: ["npm ci"]\n'),
  );
  assert.ok(edited.ok);
  const after = buildPlanSpec(edited.plan, "c".repeat(40));
  const changed = after.stages.filter((stage, i) => stage.definition !== before.stages[i]?.definition);
  assert.deepEqual(
    changed.map((stage) => stage.name),
    ["Left"],
  );
});

test("warnings are kept up to 50, each message up to 1,000 characters, with its stage when it names one", () => {
  const warnings: Diagnostic[] = Array.from({ length: 60 }, (_, i) => ({
    message: i === 0 ? "x".repeat(1500) : `warning ${i}`,
    line: i + 1,
    column: 2,
    ...(i % 2 === 1 ? { stage: "a" } : {}),
  }));
  const spec = buildPlanSpec(diamond(), "b".repeat(40), warnings);
  assert.equal(spec.warnings?.length, 50);
  assert.equal(spec.warnings?.[0]?.message, "x".repeat(1000));
  assert.deepEqual(spec.warnings?.[0], { message: "x".repeat(1000), line: 1, column: 2 });
  assert.deepEqual(spec.warnings?.[1], { message: "warning 1", line: 2, column: 2, stage: "a" });
  assert.equal(spec.warnings?.at(-1)?.message, "warning 49");
});

test("auto_merge is carried as written, on the plan and on each stage; where it is not written it stays absent", () => {
  const text = DIAMOND_PLAN.replace("  version: 1\n", "  version: 1\n  auto_merge: false\n").replace(
    "      name: Left\n",
    "      name: Left\n      auto_merge: true\n",
  );
  const parsed = parsePlan(PLAN_PATH, text);
  assert.ok(parsed.ok);
  const spec = buildPlanSpec(parsed.plan, "b".repeat(40));
  assert.equal(spec.autoMerge, false);
  assert.deepEqual(
    spec.stages.map((stage) => [stage.id, stage.autoMerge]),
    [
      ["a", undefined],
      ["b", true],
      ["c", undefined],
      ["d", undefined],
    ],
  );
  assert.equal("autoMerge" in buildPlanSpec(diamond(), "b".repeat(40)), false);
});

test("adjudication: the plan's max_amendments_per_stage and each stage's count of criteria are carried; unwritten, absent", () => {
  const text = DIAMOND_PLAN.replace(
    "  version: 1\n",
    "  version: 1\n  adjudication:\n    max_amendments_per_stage: 1\n",
  );
  const parsed = parsePlan(PLAN_PATH, text);
  assert.ok(parsed.ok);
  const spec = buildPlanSpec(parsed.plan, "b".repeat(40));
  assert.equal(spec.maxAmendmentsPerStage, 1);
  assert.deepEqual(
    spec.stages.map((stage) => stage.acceptanceCount),
    parsed.plan.stages.map((stage) => (stage.acceptance.length === 0 ? undefined : stage.acceptance.length)),
  );
  assert.equal("maxAmendmentsPerStage" in buildPlanSpec(diamond(), "b".repeat(40)), false);
});

test("the spec carries the caps its sessions run with: the plan's, and a stage's own only where they differ", () => {
  const parsed = parsePlan(
    PLAN_PATH,
    DIAMOND_PLAN.replace("  version: 1\n", "  version: 1\n  max_turns: 80\n").replace(
      "      name: Left\n",
      "      name: Left\n      max_budget_usd: 50\n",
    ),
  );
  assert.ok(parsed.ok);
  const spec = buildPlanSpec(parsed.plan, "b".repeat(40), [], { session: { max_budget_usd: 20 } });
  assert.deepEqual(spec.caps, {
    maxBudgetUsd: 20,
    maxTurns: 80,
    from: { maxBudgetUsd: ".github/loom.yml", maxTurns: "plan" },
  });
  assert.deepEqual(
    spec.stages.map((stage) => [stage.id, stage.caps]),
    [
      ["a", undefined],
      // b asks for $50; the repository allows $20: the ceiling is what b's sessions get.
      ["b", undefined],
      ["c", undefined],
      ["d", undefined],
    ],
  );
  const open = buildPlanSpec(parsed.plan, "b".repeat(40), [], null);
  assert.deepEqual(open.caps?.from, { maxBudgetUsd: "default", maxTurns: "plan" });
  assert.deepEqual(open.stages.find((stage) => stage.id === "b")?.caps, {
    maxBudgetUsd: 50,
    maxTurns: 80,
    from: { maxBudgetUsd: "stage", maxTurns: "plan" },
  });
});
