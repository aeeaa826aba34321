import type { PlanSpec } from "../../src/orchestrator/events.ts";
import type { Plan } from "../../src/plan/plan.ts";

/** The part of a parsed plan the orchestrator schedules on. */
export function buildPlanSpec(plan: Plan, blobSha: string): PlanSpec {
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
    })),
  };
}
