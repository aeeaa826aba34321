import type { CapsInForce } from "../config/caps-in-force.ts";
import type { CapSource } from "../config/caps-in-force.ts";
import { forecastPlanSpend, getPlanBudget, getPlanSpend } from "../orchestrator/forecast-spend.ts";
import type { ForecastBasis } from "../orchestrator/forecast-basis.ts";
import type { BudgetWait, PlanState } from "../orchestrator/state.ts";
import { escapeCell } from "./format-status.ts";
import { formatUsd } from "./render-usage.ts";

const ORIGINS: Record<CapSource, string> = {
  stage: "the stage",
  plan: "the plan",
  ".github/loom.yml": "`.github/loom.yml`",
  "action input": "the action input",
  default: "loom's default",
  "opted out": "`.github/loom.yml` opts out",
};

const BASES: Record<ForecastBasis, (each: string) => string> = {
  average: (each) => `at ${each} each, the plan's average per completed stage`,
  "stage estimate": (each) => `at ${each} each (\`budget.stage_estimate_usd\`)`,
  "session cap": () => "at their session caps until a stage completes",
  none: () => "not counted: no session cap or `budget.stage_estimate_usd` to forecast them by",
};

/**
 * `$105.00 ($0.00 spent, 2 stages ahead at their session caps until a stage completes)`: a
 * forecast and how it was made (a wait stored before loom said how: the numbers alone).
 */
function describeForecast(forecast: Omit<BudgetWait, "stageId" | "budgetUsd">): string {
  const { stagesAhead, basis, forecastUsd, spentUsd } = forecast;
  const each = formatUsd(stagesAhead ? (forecastUsd - spentUsd) / stagesAhead : 0);
  const how =
    stagesAhead === undefined || basis === undefined
      ? ""
      : `, ${stagesAhead} stage${stagesAhead === 1 ? "" : "s"} ahead ${BASES[basis](each)}`;
  return `${formatUsd(forecastUsd)} (${formatUsd(spentUsd)} spent${how})`;
}

/** Why the plan waits for budget, with the numbers: the stage note, the stage's and the plan's check runs. */
export function describeBudgetWait(wait: BudgetWait): string {
  return `the plan's forecast is ${describeForecast(wait)}, over its ${formatUsd(wait.budgetUsd)} budget`;
}

/** `$10.00 (loom's default) and 200 turns (loom's default)`; a cap opted out is "no spending cap". */
export function describeCaps(caps: CapsInForce): string {
  const budget =
    caps.maxBudgetUsd === undefined
      ? `no spending cap (${ORIGINS[caps.from.maxBudgetUsd]})`
      : `${formatUsd(caps.maxBudgetUsd)} (${ORIGINS[caps.from.maxBudgetUsd]})`;
  const turns =
    caps.maxTurns === undefined
      ? `no turn cap (${ORIGINS[caps.from.maxTurns]})`
      : `${caps.maxTurns} turns (${ORIGINS[caps.from.maxTurns]})`;
  return `${budget} and ${turns}`;
}

/** What the budget is made of: `$110.00 ($100.00 loom's default + $10.00 added with /loom budget)`. */
function describeBudget(state: PlanState, budget: number): string {
  const from = state.settings.planBudgetFrom;
  const raised = state.budgetRaisedUsd ?? 0;
  const parts = [
    ...(from === "default" || from === ".github/loom.yml"
      ? [
          `${formatUsd(state.settings.planBudgetUsd ?? 0)} ${from === "default" ? "loom's default" : "`budget.plan_usd`"}`,
        ]
      : []),
    ...(raised > 0 ? [`${formatUsd(raised)} added with \`/loom budget\``] : []),
  ];
  return parts.length === 0 ? formatUsd(budget) : `${formatUsd(budget)} (${parts.join(" + ")})`;
}

/**
 * The plan check run's budget and caps lines: the budget with where it comes from, the forecast,
 * why the plan waits when it does, and the caps its sessions run with (the plan's, then each stage
 * whose own differ). Plans stored before defaults carry no sources: only what they know is shown.
 */
export function renderBudgetLines(state: PlanState): string[] {
  const lines: string[] = [];
  const budget = getPlanBudget(state);
  const wait = state.budgetWait;
  if (budget !== null) {
    lines.push(
      `**Budget:** ${formatUsd(getPlanSpend(state))} spent of ${describeBudget(state, budget)} · forecast ${describeForecast(forecastPlanSpend(state))}`,
    );
  } else if (state.settings.planBudgetFrom === "opted out") {
    lines.push(
      `**Budget:** none (\`.github/loom.yml\` opts out with \`budget.plan_usd: none\`) · ${formatUsd(getPlanSpend(state))} spent`,
    );
  }
  if (wait)
    lines.push(
      `⏸ \`${escapeCell(wait.stageId, 128)}\` waits: ${describeBudgetWait(wait)}; someone with write access raises the budget with \`/loom budget +<usd>\``,
    );
  const caps = state.plan.caps;
  if (caps !== undefined) {
    const stages = state.plan.stages.flatMap((spec) =>
      spec.caps === undefined ? [] : [`\`${escapeCell(spec.id, 128)}\`: ${describeCaps(spec.caps)}`],
    );
    lines.push(
      `**Session caps:** ${describeCaps(caps)} a session${stages.length === 0 ? "" : `; ${stages.slice(0, 20).join("; ")}${stages.length > 20 ? `; ${stages.length - 20} more stages set their own` : ""}`}`,
    );
  }
  return lines;
}

/** The status comment's one budget line: spend, budget, forecast, the plan's caps, whether it waits. */
export function renderBudgetLine(state: PlanState): string[] {
  const budget = getPlanBudget(state);
  const caps = state.plan.caps;
  const parts =
    budget === null
      ? state.settings.planBudgetFrom === "opted out"
        ? [`**Budget:** none · ${formatUsd(getPlanSpend(state))} spent`]
        : []
      : [
          `**Budget:** ${formatUsd(getPlanSpend(state))} spent of ${formatUsd(budget)}`,
          `forecast ${formatUsd(forecastPlanSpend(state).forecastUsd)}`,
        ];
  if (parts.length === 0) return [];
  if (caps !== undefined)
    parts.push(
      `caps a session: ${caps.maxBudgetUsd === undefined ? "no spending cap" : formatUsd(caps.maxBudgetUsd)}, ${caps.maxTurns === undefined ? "no turn cap" : `${caps.maxTurns} turns`}`,
    );
  if (state.budgetWait)
    parts.push(`⏸ \`${escapeCell(state.budgetWait.stageId, 128)}\` waits for \`/loom budget +<usd>\``);
  return [parts.join(" · ")];
}
