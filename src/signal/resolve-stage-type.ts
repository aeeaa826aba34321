import { detectStageType } from "../plan/detect-stage-type.ts";
import type { Stage, StageType } from "../plan/plan.ts";

/**
 * The stage type a session works as: the declared one, or, when left `standard`, the one its id
 * or name implies (as the reference CLI guesses it: `knowledge-distill`, `knowledge`,
 * `integration-verify`).
 */
export function resolveStageType(stage: Pick<Stage, "id" | "name" | "stage_type">): StageType {
  return stage.stage_type !== "standard" ? stage.stage_type : detectStageType(stage.id, stage.name);
}
