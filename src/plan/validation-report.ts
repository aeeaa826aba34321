import { buildGraph } from "../graph/build-graph.ts";
import { computeLevels } from "../graph/compute-levels.ts";
import { derivePlanId } from "./derive-plan-id.ts";
import type { PlanResult, Stage, StageType } from "./plan.ts";

/** What `loom validate --json` prints: one object, the same shape for valid and invalid plans. */
export type ValidationReport = {
  ok: boolean;
  plan: { id: string; name: string };
  /** `level` is the DAG depth (roots are 0), null for a stage on a dependency cycle. */
  stages: { id: string; dependencies: string[]; level: number | null; stage_type: StageType }[];
  errors: { message: string; line: number; column: number }[];
  warnings: { message: string; line: number; column: number; stage?: string }[];
};

export function buildValidationReport(path: string, result: PlanResult): ValidationReport {
  const stages = result.ok ? result.plan.stages : (result.stages ?? []);
  const plan = result.ok
    ? { id: result.plan.id, name: result.plan.name }
    : (result.plan ?? { id: derivePlanId(path), name: derivePlanId(path) });
  return {
    ok: result.ok,
    plan,
    stages: describeStages(stages),
    errors: result.ok ? [] : result.errors.map(({ message, line, column }) => ({ message, line, column })),
    warnings: result.warnings.map(({ message, line, column, stage }) =>
      stage === undefined ? { message, line, column } : { message, line, column, stage },
    ),
  };
}

function describeStages(stages: readonly Stage[]): ValidationReport["stages"] {
  const levels = computeLevels(buildGraph(stages));
  return stages.map((stage) => ({
    id: stage.id,
    dependencies: [...stage.dependencies],
    level: levels.get(stage.id) ?? null,
    stage_type: stage.stage_type,
  }));
}
