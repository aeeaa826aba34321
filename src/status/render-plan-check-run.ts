import type { PlanState } from "../orchestrator/state.ts";
import { getPlanActions, isAwaitingApproval } from "./check-run-actions.ts";
import { getStageCheckState, isStuck } from "./check-run-state.ts";
import type { CheckState } from "./check-run-state.ts";
import { CHECK_OUTPUT_MAX, CHECK_TITLE_MAX, fitText, pickFitting } from "./fit-text.ts";
import type { RenderOptions } from "./format-status.ts";
import { renderPlanGraphText, renderPlanMermaid } from "./render-plan-graph.ts";
import { listStages, renderCounts, renderStageTable } from "./render-stage-table.ts";
import type { CheckRunView } from "./render-stage-check-run.ts";

/** `loom: <plan-id>`. */
export function getPlanCheckName(planId: string): string {
  return `loom: ${planId}`;
}

/**
 * The plan's check: success once every stage is merged or skipped; failure when nothing runs any
 * more and a stage is stuck; action_required while an untrusted plan waits for approval; cancelled
 * when the pull request closed first; otherwise in progress (queued while on hold).
 */
export function getPlanCheckState(state: PlanState): CheckState {
  const stages = listStages(state).filter((s) => !s.removed);
  const checks = stages.map(getStageCheckState);
  const done = checks.every((c) => c.status === "completed");
  if (
    done &&
    checks.every(
      (c) => c.status === "completed" && (c.conclusion === "success" || c.conclusion === "skipped"),
    )
  ) {
    return { status: "completed", conclusion: "success" };
  }
  if (state.closed) return { status: "completed", conclusion: "cancelled" };
  if (isAwaitingApproval(state)) return { status: "completed", conclusion: "action_required" };
  if (done) return { status: "completed", conclusion: "failure" };
  const running = checks.some((c) => c.status === "in_progress");
  if (!running && stages.some(isStuck)) return { status: "completed", conclusion: "failure" };
  return { status: state.hold && !running ? "queued" : "in_progress" };
}

function renderTitle(state: PlanState): string {
  const stages = listStages(state).filter((s) => !s.removed);
  const merged = stages.filter((s) => s.merged).length;
  if (isAwaitingApproval(state)) return "Waiting for approval";
  return `${merged}/${stages.length} stages merged`;
}

/**
 * The plan's check run: counts and the stage table in the summary; the mermaid graph and a plain
 * text rendering of it in `text` (mermaid in check runs is undocumented). Both fit 65,535.
 */
export function renderPlanCheckRun(state: PlanState, options: RenderOptions = {}): CheckRunView {
  const now = options.now ?? state.updatedAt;
  const head = [renderCounts(state), ""];
  const summary = pickFitting(
    (["full", "short", "bare"] as const).map(
      (detail) => () => [...head, renderStageTable(state, detail, now)].join("\n"),
    ),
    CHECK_OUTPUT_MAX,
  );
  const textGraph = ["### Graph (text)", "", "```text", renderPlanGraphText(state), "```"].join("\n");
  const mermaid = renderPlanMermaid(state);
  const text = pickFitting(
    [
      () => (mermaid ? ["```mermaid", mermaid.trimEnd(), "```", "", textGraph].join("\n") : textGraph),
      () => textGraph,
    ],
    CHECK_OUTPUT_MAX,
  );
  return {
    name: getPlanCheckName(state.plan.id),
    ...getPlanCheckState(state),
    title: fitText(renderTitle(state), CHECK_TITLE_MAX),
    summary,
    text,
    actions: getPlanActions(state),
  };
}
