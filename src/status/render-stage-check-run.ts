import { renderDisputeFact, renderStageAmendments } from "./render-disputes.ts";
import {
  describeKind,
  formatUsageLine,
  renderStageChecks,
  renderStageDeviations,
  renderStageUsage,
  sumStageUsage,
} from "./render-usage.ts";
import type { PlanState, StageState } from "../orchestrator/state.ts";
import { describeBudgetWait, describeCaps } from "./render-budget.ts";
import { renderStageLearnings } from "./render-stage-learnings.ts";
import { renderStageNetwork } from "./render-stage-network.ts";
import { renderContinuation } from "./render-continuation.ts";
import type { CheckAnnotation } from "./plan-annotations.ts";
import { toFailureAnnotations } from "./failure-annotations.ts";
import { getStageActions } from "./check-run-actions.ts";
import type { CheckRunAction } from "./check-run-actions.ts";
import { getStageCheckState } from "./check-run-state.ts";
import type { CheckConclusion, CheckState, CheckStatus } from "./check-run-state.ts";
import { CHECK_OUTPUT_MAX, CHECK_TITLE_MAX, fitText, pickFitting } from "./fit-text.ts";
import {
  describeStatus,
  escapeCell,
  formatClock,
  formatDuration,
  formatHeartbeat,
  getCurrentSession,
  formatElapsed,
  getStatusIcon,
} from "./format-status.ts";
import type { RenderOptions } from "./format-status.ts";
import { renderMergeWaitFact } from "./render-merge-waits.ts";

/** Everything a check run shows, ready for `POST/PATCH …/check-runs`. */
export type CheckRunView = {
  name: string;
  status: CheckStatus;
  conclusion?: CheckConclusion;
  title: string;
  summary: string;
  text?: string;
  actions: CheckRunAction[];
  /**
   * Sent when the check run is created or completed (GitHub appends the annotations of every
   * update, so never with a later one): the plan's warnings, or where a stage's checks failed.
   */
  annotations?: CheckAnnotation[];
};

/** `loom: <stage-id>`, or `loom: <plan-id> / <stage-id>` when the pull request holds several plans. */
export function getStageCheckName(state: PlanState, stageId: string): string {
  return state.checkNamesWithPlan === true ? `loom: ${state.plan.id} / ${stageId}` : `loom: ${stageId}`;
}

function renderFacts(state: PlanState, stage: StageState, options: RenderOptions): string[] {
  const now = options.now ?? state.updatedAt;
  const session = getCurrentSession(stage);
  const lines = [`**Status:** ${getStatusIcon(stage)} ${describeStatus(stage)}`];
  const mergeWait = renderMergeWaitFact(state, stage);
  if (mergeWait !== null) lines.push(mergeWait);
  const dispute = renderDisputeFact(stage);
  if (dispute !== null) lines.push(dispute);
  lines.push(
    session
      ? `**Attempt:** ${session.attempt} (${session.kind} session, ${session.status})`
      : "**Attempt:** — (not dispatched yet)",
  );
  const rerunWhy = stage.rerun?.why ?? (session?.kind === "merge" ? undefined : session?.rerunWhy);
  if (rerunWhy !== undefined) lines.push(`**Re-run:** ${escapeCell(rerunWhy, 300)}`);
  if (session) lines.push(`**Elapsed:** ${formatElapsed(stage, now)}`);
  if (state.budgetWait?.stageId === stage.id)
    lines.push(
      `**Waiting for budget:** ${describeBudgetWait(state.budgetWait)}; \`/loom budget +<usd>\` from someone with write access raises it`,
    );
  const caps = state.plan.stages.find((spec) => spec.id === stage.id)?.caps ?? state.plan.caps;
  if (caps !== undefined) lines.push(`**Session caps:** ${describeCaps(caps)}`);
  if (session?.runnerWaitNoticed === true && session.status === "spawning")
    lines.push(
      `**Waiting for a runner** since ${formatClock(session.dispatchedAt, now)}: no runner has picked up the run yet`,
    );
  const heartbeat = formatHeartbeat(session?.lastHeartbeat ?? null, now);
  if (heartbeat) lines.push(`**Last heartbeat:** ${escapeCell(heartbeat, 300)}`);
  else if (session?.status === "running" && state.settings.liveHeartbeats === false)
    lines.push(
      "**Last heartbeat:** not shown while the run is in progress: GitHub Enterprise Server shows a " +
        "run's artifacts once it has finished. The job's silence watchdog and timeout stop a stalled session.",
    );
  const usage = sumStageUsage(stage);
  if (usage) lines.push(`**Cost:** ${formatUsageLine(usage)}`);
  if (session?.runId && options.runUrl)
    lines.push(`**Run:** [#${session.runId}](${options.runUrl(session.runId)})`);
  if (session?.detail) lines.push(`**Result:** ${escapeCell(session.detail, 1000)}`);
  if (stage.retryAt !== null) lines.push(`**Retry due:** ${formatClock(stage.retryAt, now)}`);
  if (stage.dependencies.length > 0) {
    lines.push(`**Depends on:** ${stage.dependencies.map((d) => `\`${escapeCell(d, 128)}\``).join(", ")}`);
  }
  return lines.map((line) => `- ${line}`);
}

function renderSessions(stage: StageState, options: RenderOptions): string[] {
  if (stage.sessions.length === 0) return [];
  const rows = stage.sessions.map((s) => {
    const run =
      s.runId === null ? "—" : options.runUrl ? `[#${s.runId}](${options.runUrl(s.runId)})` : `#${s.runId}`;
    const took = s.finishedAt === null ? "—" : formatDuration(s.finishedAt - (s.startedAt ?? s.dispatchedAt));
    return `| ${s.attempt} | ${describeKind(s)} | ${s.status} | ${run} | ${took} | ${escapeCell(s.detail ?? "")} |`;
  });
  return [
    "### Sessions",
    "",
    "| Attempt | Kind | Status | Run | Took | Detail |",
    "|---|---|---|---|---|---|",
    ...rows,
  ];
}

/** A section after a blank line, or nothing when it is empty. */
function section(lines: string[]): string[] {
  return lines.length === 0 ? [] : ["", ...lines];
}

function renderNotes(stage: StageState, limit: number): string[] {
  if (stage.notes.length === 0 || limit === 0) return [];
  return ["### Notes", "", ...stage.notes.slice(-limit).map((n) => `- ${escapeCell(n.text, 500)}`)];
}

/**
 * The check run of one stage: status and conclusion from the stage status, a summary with status,
 * attempt, elapsed time, last heartbeat, cost, run link and result, the buttons that fit. Shrinks
 * itself (fewer notes, then no session table) to stay within GitHub's limits.
 */
export function renderStageCheckRun(
  state: PlanState,
  stageId: string,
  options: RenderOptions = {},
): CheckRunView {
  const stage = state.stages[stageId];
  if (!stage) throw new Error(`renderStageCheckRun: unknown stage ${stageId}`);
  const open = getStageCheckState(stage);
  // A closed pull request runs nothing more: unfinished stages end as cancelled, without buttons.
  const closed = state.closed && open.status !== "completed";
  const check: CheckState = closed ? { status: "completed", conclusion: "cancelled" } : open;
  const facts = renderFacts(state, stage, options);
  const continuation = [
    ...section(renderContinuation(stage, options)),
    ...section(renderStageAmendments(stage)),
  ];
  const report = (withOutput: boolean) => [
    ...continuation,
    ...section(renderStageChecks(stage, withOutput)),
    ...section(renderStageUsage(stage)),
    ...section(renderStageNetwork(stage)),
    ...section(renderStageDeviations(stage)),
    ...section(renderStageLearnings(stage)),
  ];
  const summary = pickFitting(
    [
      () =>
        [
          ...facts,
          ...report(true),
          "",
          ...renderSessions(stage, options),
          "",
          ...renderNotes(stage, 20),
        ].join("\n"),
      () => [...facts, ...report(false), "", ...renderNotes(stage, 3)].join("\n"),
      () => [...facts, ...continuation].join("\n"),
      () => facts.join("\n"),
    ],
    CHECK_OUTPUT_MAX,
  );
  const title = fitText(`${stage.name || stage.id}: ${describeStatus(stage)}`, CHECK_TITLE_MAX);
  const checked = stage.sessions.findLast((s) => s.report !== undefined && s.report.checks.length > 0);
  const annotations = toFailureAnnotations(
    checked?.report?.checks ?? [],
    check.status === "completed" && check.conclusion === "failure",
  );
  return {
    name: getStageCheckName(state, stage.id),
    ...check,
    title,
    summary,
    actions: closed ? [] : getStageActions(stage),
    ...(annotations.length === 0 ? {} : { annotations }),
  };
}
