import type { StageType } from "./plan.ts";

/**
 * The stage type implied by a stage's id or name, as the reference CLI guesses it when the plan
 * leaves `stage_type` out (case-insensitive, first match wins): `knowledge-distill`, then
 * `knowledge`, then `integration-verify`; otherwise `standard`.
 */
export function detectStageType(id: string, name: string): StageType {
  const lowerId = id.toLowerCase();
  const lowerName = name.toLowerCase();
  if (
    [lowerId, lowerName].some((text) => text.includes("knowledge-distill")) ||
    lowerName.includes("knowledge distill")
  ) {
    return "knowledge-distill";
  }
  if (lowerId.includes("knowledge") || lowerName.includes("knowledge")) return "knowledge";
  if (
    [lowerId, lowerName].some((text) => text.includes("integration-verify")) ||
    lowerName.includes("integration verify")
  ) {
    return "integration-verify";
  }
  return "standard";
}
