import { forecastRerun } from "../orchestrator/forecast-spend.ts";
import type { PlanState } from "../orchestrator/state.ts";
import { escapeCell } from "./format-status.ts";
import { formatUsd } from "./render-usage.ts";

/**
 * The completed stages a change affects, for the plan's check run and the status comment: each
 * with why, the forecast cost of running them again, and how to (a person decides; nothing is
 * spent before). Nothing when no change affects a stage.
 */
export function renderAffected(state: PlanState): string[] {
  const affected = state.affected ?? null;
  if (affected === null || affected.stages.length === 0 || state.closed) return [];
  const forecast = forecastRerun(
    state,
    affected.stages.map((stage) => stage.id),
  );
  return [
    `**Affected by ${escapeCell(affected.cause, 300)}** (${affected.stages.length} completed stage${affected.stages.length === 1 ? "" : "s"}, forecast ${formatUsd(forecast.usd)}: ${forecast.basis}):`,
    "",
    ...affected.stages.map((stage) => `- \`${escapeCell(stage.id, 128)}\`: ${escapeCell(stage.why, 300)}`),
    "",
    "Someone with write access runs them again with `/loom rerun affected` or the plan check run's Re-run affected button (`rerun: affected` in `.github/loom.yml` does it without asking).",
    "",
  ];
}
