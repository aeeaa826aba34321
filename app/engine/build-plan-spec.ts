import type { PlanSpec } from "../../src/orchestrator/events.ts";
import type { Diagnostic, Plan } from "../../src/plan/plan.ts";

/** Warnings a plan keeps in its state (each shown once as an annotation where the plan runs). */
const MAX_WARNINGS = 50;

/** The part of a parsed plan the orchestrator schedules on, with its warnings. */
export function buildPlanSpec(plan: Plan, blobSha: string, warnings: readonly Diagnostic[] = []): PlanSpec {
  return {
    id: plan.id,
    name: plan.name,
    path: plan.path,
    blobSha,
    stages: plan.stages.map((stage) => ({
      id: stage.id,
      name: stage.name,
      dependencies: [...stage.dependencies],
      stageType: stage.stage_type,
      ...(stage.auto_merge === undefined ? {} : { autoMerge: stage.auto_merge }),
    })),
    ...(plan.metadata.auto_merge === undefined ? {} : { autoMerge: plan.metadata.auto_merge }),
    ...(warnings.length === 0
      ? {}
      : {
          warnings: warnings.slice(0, MAX_WARNINGS).map((w) => ({
            message: w.message.slice(0, 1000),
            line: w.line,
            column: w.column,
            ...(w.stage === undefined ? {} : { stage: w.stage }),
          })),
        }),
  };
}
