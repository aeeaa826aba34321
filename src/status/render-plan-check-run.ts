import type { PlanState } from "../orchestrator/state.ts";
import { renderDisputes } from "./render-disputes.ts";
import { isWaitingForAdjudication } from "../orchestrator/is-waiting-for-adjudication.ts";
import { getPlanActions, isAwaitingApproval } from "./check-run-actions.ts";
import { getStageCheckState, isStuck } from "./check-run-state.ts";
import type { CheckState } from "./check-run-state.ts";
import { CHECK_OUTPUT_MAX, CHECK_TITLE_MAX, fitText, pickFitting } from "./fit-text.ts";
import type { RenderOptions } from "./format-status.ts";
import { renderPlanGraphText, renderPlanMermaid } from "./render-plan-graph.ts";
import { ANNOTATIONS_PER_REQUEST, toPlanAnnotation } from "./plan-annotations.ts";
import { escapeCell } from "./format-status.ts";
import { renderForkNote } from "./render-fork-note.ts";
import { renderMergeWaits } from "./render-merge-waits.ts";
import { renderAffected } from "./render-affected.ts";
import { isWaitingForMerge } from "../orchestrator/is-waiting-for-merge.ts";
import { isCallerRefused, renderCallerNote } from "./render-caller-note.ts";
import { renamesPlanFile } from "../orchestrator/plan-file-lifecycle.ts";
import { listStages, renderCounts, renderPlanSpend, renderStageTable } from "./render-stage-table.ts";
import type { CheckRunView } from "./render-stage-check-run.ts";

/** `loom: <plan-id>`. */
export function getPlanCheckName(planId: string): string {
  return `loom: ${planId}`;
}

/**
 * The plan's check: success once every stage is merged or skipped; failure when nothing runs any
 * more and a stage is stuck (action_required when every stuck stage waits for a person to merge
 * it), or nothing runs and the caller workflow cannot run stages (`isCallerRefused`);
 * action_required while an untrusted plan waits for approval (a change that affects completed
 * stages leaves it success: they passed, and re-running them is a person's offer); cancelled when
 * the pull request closed first; otherwise in progress (queued while on hold).
 */
export function getPlanCheckState(state: PlanState): CheckState {
  const stages = listStages(state).filter((s) => !s.removed);
  const checks = stages.map(getStageCheckState);
  const done = checks.every((c) => c.status === "completed");
  // With rename_plans, the plan is done once its file is archived DONE- (that commit is the head
  // the final checks are on).
  const archiving =
    renamesPlanFile(state) &&
    !state.closed &&
    state.planFileProblem === undefined &&
    !/(^|\/)DONE-[^/]*$/.test(state.planFile ?? state.plan.path);
  if (
    done &&
    checks.every(
      (c) => c.status === "completed" && (c.conclusion === "success" || c.conclusion === "skipped"),
    )
  ) {
    if (archiving) return { status: "in_progress" };
    // Stages a push affects are an offer (the title, the list and the Re-run affected button say
    // so), not a verdict: every stage passed on the commits loom merged.
    return { status: "completed", conclusion: "success" };
  }
  if (state.closed) return { status: "completed", conclusion: "cancelled" };
  // Nothing can start while the caller cannot run stages (sessions already running may finish).
  if (isCallerRefused(state) && !checks.some((c) => c.status === "in_progress"))
    return { status: "completed", conclusion: "failure" };
  if (isAwaitingApproval(state)) return { status: "completed", conclusion: "action_required" };
  // Waiting for a person to raise the budget, with nothing left running.
  if (state.budgetWait && !checks.some((c) => c.status === "in_progress"))
    return { status: "completed", conclusion: "action_required" };
  // Nothing runs and a person must act: a merge only they may make asks for them, anything else failed.
  const stuck = stages.filter(isStuck);
  const needed: CheckState = stuck.every((s) => isWaitingForMerge(s) || isWaitingForAdjudication(s))
    ? { status: "completed", conclusion: "action_required" }
    : { status: "completed", conclusion: "failure" };
  if (done) return needed;
  const running = checks.some((c) => c.status === "in_progress");
  if (!running && stuck.length > 0) return needed;
  return { status: state.hold && !running ? "queued" : "in_progress" };
}

/** The valid plan's warnings, each at its line (also annotations on the plan file). */
function renderWarnings(state: PlanState): string[] {
  const warnings = state.plan.warnings ?? [];
  if (warnings.length === 0) return [];
  return [
    `**Plan warnings (${warnings.length}):**`,
    "",
    ...warnings.map(
      (w) =>
        `- line ${w.line}${w.stage ? ` (stage \`${escapeCell(w.stage, 128)}\`)` : ""}: ${escapeCell(w.message, 500)}`,
    ),
    "",
  ];
}

function renderTitle(state: PlanState): string {
  const stages = listStages(state).filter((s) => !s.removed);
  const merged = stages.filter((s) => s.merged).length;
  if (isCallerRefused(state)) return "The caller workflow cannot run stages";
  if (isAwaitingApproval(state)) return "Waiting for approval";
  if (state.budgetWait) return `Waiting for budget: ${merged}/${stages.length} stages merged`;
  const affected = state.affected?.stages.length ?? 0;
  if (affected > 0)
    return `${affected} completed stage${affected === 1 ? "" : "s"} affected by a push: ${merged}/${stages.length} stages merged`;
  if (stages.some(isWaitingForMerge))
    return `Waiting for a person to merge: ${merged}/${stages.length} stages merged`;
  if (stages.some(isWaitingForAdjudication))
    return `Waiting for a person's decision on a dispute: ${merged}/${stages.length} stages merged`;
  return `${merged}/${stages.length} stages merged`;
}

/**
 * The plan's check run: counts and the stage table in the summary; the mermaid graph and a plain
 * text rendering of it in `text` (mermaid in check runs is undocumented). Both fit 65,535.
 */
export function renderPlanCheckRun(state: PlanState, options: RenderOptions = {}): CheckRunView {
  const now = options.now ?? state.updatedAt;
  const warnings = state.plan.warnings ?? [];
  const head = [
    renderCounts(state),
    "",
    ...renderCallerNote(state),
    ...renderForkNote(state),
    ...(state.distrusted === undefined || !isAwaitingApproval(state)
      ? []
      : [
          `> Waiting for a person: ${escapeCell(state.distrusted, 300)}. Someone with write access approves the head with \`/loom approve\` or the Approve button.`,
          "",
        ]),
    ...renderMergeWaits(state),
    ...renderDisputes(state),
    ...renderAffected(state),
    ...renderPlanSpend(state),
    ...(state.planFileProblem === undefined
      ? []
      : [`_The plan file was not renamed: ${escapeCell(state.planFileProblem, 300)}_`, ""]),
    ...renderWarnings(state),
  ];
  const summary = pickFitting(
    (["full", "short", "bare"] as const).map(
      (detail) => () => [...head, renderStageTable(state, detail, now, options.checkRunUrl)].join("\n"),
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
    ...(warnings.length === 0
      ? {}
      : {
          annotations: warnings
            .slice(0, ANNOTATIONS_PER_REQUEST)
            .map((w) => toPlanAnnotation(state.planFile ?? state.plan.path, w, "warning")),
        }),
  };
}
