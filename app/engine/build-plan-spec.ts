import { createHash } from "node:crypto";
import type { LoomConfig } from "../../src/config/loom-config.ts";
import { resolvePlanCaps } from "../../src/config/resolve-plan-caps.ts";
import type { PlanSpec } from "../../src/orchestrator/events.ts";
import type { Diagnostic, Plan } from "../../src/plan/plan.ts";

/** Warnings a plan keeps in its state (each shown once as an annotation where the plan runs). */
const MAX_WARNINGS = 50;

/**
 * The part of a parsed plan the orchestrator schedules on, with its warnings and the caps its
 * sessions run with (`repoConfig`: `.github/loom.yml`, null when there is none).
 */
export function buildPlanSpec(
  plan: Plan,
  blobSha: string,
  warnings: readonly Diagnostic[] = [],
  repoConfig: Pick<LoomConfig, "session"> | null = null,
): PlanSpec {
  const caps = resolvePlanCaps(plan, repoConfig);
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
      ...(stage.acceptance.length === 0 ? {} : { acceptanceCount: stage.acceptance.length }),
      ...(caps.stages[stage.id] === undefined ? {} : { caps: caps.stages[stage.id] }),
      ...(stage.files.length === 0 ? {} : { files: [...stage.files] }),
      definition: digestStage(stage),
    })),
    ...(plan.metadata.auto_merge === undefined ? {} : { autoMerge: plan.metadata.auto_merge }),
    ...(plan.metadata.adjudication?.max_amendments_per_stage === undefined
      ? {}
      : { maxAmendmentsPerStage: plan.metadata.adjudication.max_amendments_per_stage }),
    caps: caps.plan,
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

/**
 * A digest of everything the plan file says about a stage (its parsed fields, as JSON): equal for
 * an unchanged stage whatever else the file changed, so an edit of the plan tells which stages it
 * redefined. 16 hex digits of SHA-256.
 */
function digestStage(stage: Plan["stages"][number]): string {
  return createHash("sha256").update(JSON.stringify(stage)).digest("hex").slice(0, 16);
}
