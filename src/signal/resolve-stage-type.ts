import type { Stage, StageType } from "../plan/plan.ts";

/**
 * The stage type a session works as: the declared one, or, when left `standard`, the one its id
 * or name implies (as the reference CLI does: `knowledge-bootstrap`, `integration-verify`, …).
 */
export function resolveStageType(stage: Pick<Stage, "id" | "name" | "stage_type">): StageType {
  if (stage.stage_type !== "standard") return stage.stage_type;
  const text = `${stage.id} ${stage.name}`.toLowerCase().replace(/[\s_]+/g, "-");
  if (text.includes("knowledge-distill")) return "knowledge-distill";
  if (text.includes("integration-verify")) return "integration-verify";
  if (/(^|-)knowledge(-|$)/.test(text)) return "knowledge";
  return "standard";
}
