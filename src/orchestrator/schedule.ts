import { buildGraph } from "../graph/build-graph.ts";
import type { Graph } from "../graph/build-graph.ts";
import { isDependencySatisfied, readyStages } from "../graph/ready-stages.ts";
import { createsBranchFirst, findCallerBlocker } from "../caller/caller-verdict.ts";
import type { SessionKind } from "../stage/stage-status.ts";
import { forecastPlanSpend, getPlanBudget } from "./forecast-spend.ts";
import type { BudgetWait, PlanState, StageState } from "./state.ts";
import { describeBudgetWait } from "../status/render-budget.ts";
import type { StepContext } from "./step-context.ts";
import { findForkBlocker, requestTargetSync } from "./fork-target.ts";
import { getMergePoint } from "./make-target-branch.ts";
import {
  addNote,
  emit,
  findActiveSession,
  makeStageBranch,
  makeStageKey,
  moveStage,
} from "./step-context.ts";

/** The DAG of the stages the plan state holds (removed stages included, they keep their edges). */
export function buildStateGraph(state: PlanState): Graph {
  return buildGraph(state.order.map((id) => ({ id, dependencies: state.stages[id]?.dependencies ?? [] })));
}

/** Sessions that hold a runner now, over all stages and kinds. */
export function countActiveSessions(state: PlanState): number {
  return state.order.filter((id) => {
    const stage = state.stages[id];
    return stage !== undefined && findActiveSession(stage) !== undefined;
  }).length;
}

/** Why nothing may be dispatched now, or null when dispatching is allowed. */
export function findDispatchBlocker(state: PlanState): string | null {
  if (state.closed) return "the pull request is closed";
  const caller = findCallerBlocker(state.settings.caller);
  if (caller !== null) return caller;
  if (state.hold) return "the pull request has the hold label";
  if (!state.trusted && state.approvedSha !== state.pr.headSha) {
    const why = state.distrusted === undefined ? "" : `${state.distrusted}: `;
    return `${why}waiting for someone with write access to approve head ${state.pr.headSha.slice(0, 7)} (\`/loom approve\`)`;
  }
  return findForkBlocker(state);
}

/**
 * Runs after every event: stages whose dependencies are all completed and merged (or skipped by a
 * person) become queued; then, unless the plan is held, closed or unapproved, merge sessions for
 * conflicted stages and queued stages are dispatched in plan order while fewer than
 * `maxParallel` sessions run.
 */
export function schedule(ctx: StepContext): void {
  const { state } = ctx;
  if (state.closed) return;
  const graph = buildStateGraph(state);
  for (const id of readyStages(graph, state.stages)) {
    const stage = state.stages[id];
    if (!stage || stage.status !== "waiting-for-deps" || stage.removed) continue;
    const skipped = stage.dependencies.filter((dep) => state.stages[dep]?.status === "skipped");
    const why =
      skipped.length > 0
        ? `queued: ${skipped.join(", ")} skipped by a person, counted as done although not merged`
        : "queued: every dependency is completed and merged";
    moveStage(ctx, stage, "queued", why);
  }
  requestTargetSync(ctx);
  if (findDispatchBlocker(state) !== null) return;
  let free = state.settings.maxParallel - countActiveSessions(state);
  for (const id of state.order) {
    if (free <= 0) return;
    const stage = state.stages[id];
    if (stage && needsMergeSession(stage)) {
      dispatchSession(ctx, stage, "merge");
      free--;
    }
  }
  let waiting: BudgetWait | null = null;
  // Dispatching changes neither the spend nor the stages ahead: one forecast serves the whole pass.
  let over: Omit<BudgetWait, "stageId"> | null | undefined;
  for (const id of state.order) {
    if (free <= 0) break;
    const stage = state.stages[id];
    if (!stage || stage.status !== "queued" || stage.removed || stage.retryAt !== null) continue;
    // Dependencies are re-checked here: a queued stage never starts ahead of them.
    if (!stage.dependencies.every((dep) => isDependencySatisfied(state.stages[dep]))) continue;
    over = over === undefined ? checkBudget(state) : over;
    if (over !== null) {
      waiting ??= { stageId: id, ...over };
      continue;
    }
    dispatchSession(ctx, stage, chooseKind(stage));
    free--;
  }
  recordBudgetWait(ctx, waiting);
}

/**
 * The numbers that keep stages from starting, or null when the plan's budget allows the plan's
 * forecast (or it has none). A forecast equal to the budget fits.
 */
function checkBudget(state: PlanState): Omit<BudgetWait, "stageId"> | null {
  const budget = getPlanBudget(state);
  if (budget === null) return null;
  const forecast = forecastPlanSpend(state);
  if (forecast.forecastUsd <= budget) return null;
  return {
    spentUsd: forecast.spentUsd,
    forecastUsd: forecast.forecastUsd,
    budgetUsd: budget,
    stagesAhead: forecast.stagesAhead,
    basis: forecast.basis,
  };
}

/** Keeps the plan's budget wait current; a new wait leaves a note on the stage that waits. */
function recordBudgetWait(ctx: StepContext, waiting: BudgetWait | null): void {
  const { state } = ctx;
  const before = state.budgetWait ?? null;
  if (waiting === null) {
    if (before !== null) state.budgetWait = null;
    return;
  }
  state.budgetWait = waiting;
  if (before?.stageId === waiting.stageId && before.budgetUsd === waiting.budgetUsd) return;
  const stage = state.stages[waiting.stageId];
  if (stage)
    addNote(
      ctx,
      stage,
      `waiting for budget: ${describeBudgetWait(waiting)}; \`/loom budget +<usd>\` from someone with write access raises it`,
    );
}

function needsMergeSession(stage: StageState): boolean {
  return (
    stage.status === "merge-conflict" && stage.retryAt === null && findActiveSession(stage) === undefined
  );
}

/**
 * `check` after a person's `/loom amend` until its check-only run has run the checks; `continue`
 * while a person's `/loom continue` is not carried out yet (its crashed or handed-off
 * attempts included), else `stage` for a first attempt, `recovery` after a crash, hang or handoff.
 */
function chooseKind(stage: StageState): SessionKind {
  // A person's `/loom amend`: the checks run again with the amended criteria, no model.
  if (stage.amendCheck === true && (stage.amendments?.length ?? 0) > 0) return "check";
  if (stage.continuation !== undefined) return "continue";
  // Merge sessions and check runs (no session) are not what a recovery picks up.
  const last = stage.sessions
    .filter((session) => session.kind !== "merge" && session.kind !== "check")
    .at(-1);
  if (!last) return "stage";
  const recovers = last.outcome === "needs-handoff" || last.status === "crashed" || last.status === "hung";
  return recovers ? "recovery" : "stage";
}

/**
 * Dispatch the run; a `spawning` session. The first attempt's run starts from the merge point and
 * its publish job creates the stage branch (the stage workflow checks out `base` for attempt 1), so
 * the App writes nothing before the dispatch. A later attempt makes sure the branch exists first
 * (`createBranch` looks, and creates it only when no earlier publish did). A caller pinning an older
 * stage workflow, or one loom cannot place (`createsBranchFirst`), gets the branch before attempt 1
 * too: that workflow checks it out.
 */
function dispatchSession(ctx: StepContext, stage: StageState, kind: SessionKind): void {
  const { state, at } = ctx;
  if (kind !== "merge" && !moveStage(ctx, stage, "executing")) return;
  const attempt = stage.sessions.length + 1;
  const branch = makeStageBranch(state, stage.id);
  if (kind !== "merge" && (stage.attempt > 0 || createsBranchFirst(state.settings.caller))) {
    emit(ctx, {
      type: "createBranch",
      key: makeStageKey(state, stage.id, attempt, "branch"),
      stageId: stage.id,
      branch,
      from: getMergePoint(state),
      ...(stage.attempt === 0 ? { first: true as const } : {}),
      // A re-run of a completed stage starts from the merge point as it is now.
      ...(stage.rerun?.fromHead === true ? { reset: true as const } : {}),
    });
    if (stage.rerun !== undefined) delete stage.rerun.fromHead;
  }
  const continuation = kind === "continue" ? stage.continuation : undefined;
  // A person's amendments hold for every later session of the stage (a merge session runs no checks).
  const amendments = kind === "merge" ? [] : (stage.amendments ?? []);
  const checkedSha = amendments.at(-1)?.sha;
  emit(ctx, {
    type: "dispatchRun",
    key: makeStageKey(state, stage.id, attempt, "dispatch"),
    stageId: stage.id,
    attempt,
    kind,
    branch,
    previousRunId: choosePreviousRun(stage, kind),
    ...(continuation === undefined
      ? {}
      : {
          continuation: {
            instructions: continuation.instructions,
            by: continuation.by,
            fromAttempt: continuation.fromAttempt,
          },
        }),
    ...(checkedSha === undefined
      ? {}
      : {
          amendment: {
            checkedSha,
            amendments: amendments.map(({ criterionIndex, command, by }) => ({
              criterionIndex,
              command,
              by,
            })),
          },
        }),
  });
  const deadline = at + state.settings.heartbeatTimeoutMs;
  emit(ctx, {
    type: "setTimer",
    key: makeStageKey(state, stage.id, attempt, `watch:${deadline}`),
    at: deadline,
  });
  if (kind !== "merge") stage.attempt++;
  stage.sessions.push({
    attempt,
    kind,
    status: "spawning",
    runId: null,
    dispatchedAt: at,
    startedAt: null,
    finishedAt: null,
    outcome: null,
    lastHeartbeat: null,
    lastSeenAt: at,
    detail: null,
    ...(continuation === undefined ? {} : { continuation: { ...continuation } }),
    ...(kind === "merge" || stage.rerun === undefined ? {} : { rerunWhy: stage.rerun.why }),
  });
  addNote(ctx, stage, `attempt ${attempt}: ${kind} session dispatched`);
}

/**
 * The run whose artifacts the session reads: the previous attempt's (a recovery's handoff), or
 * for a `continue` session the run whose Claude Code session it resumes, unless an earlier
 * attempt of the same continue ran out of context: then its handoff (resuming a full context
 * would only run out again).
 */
function choosePreviousRun(stage: StageState, kind: SessionKind): number | null {
  const last = stage.sessions.at(-1);
  if (kind !== "continue" || stage.continuation === undefined) return last?.runId ?? null;
  const handedOff = last?.kind === "continue" && last.outcome === "needs-handoff" ? last.runId : null;
  return handedOff ?? stage.continuation.fromRunId;
}
