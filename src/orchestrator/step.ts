import type { Effect } from "./effects.ts";
import type { OrchestratorEvent } from "./events.ts";
import type { PlanState } from "./state.ts";
import { getCheckSlot } from "../status/check-run-external-id.ts";
import type { StepContext } from "./step-context.ts";
import { reject } from "./step-context.ts";
import { applyLabels } from "./apply-labels.ts";
import { applyPlanChange, closePlan, createPlanState, reopenStages } from "./apply-plan.ts";
import { confirmHead, isStalePush, moveHead, recordLoomHead } from "./move-head.ts";
import { handleCommand, replyClosed } from "./handle-command.ts";
import { handleRefusal } from "./handle-refusal.ts";
import { handleMergeFinished, handleMergeLost } from "./handle-merge.ts";
import { handleHeartbeat, handleRunDispatched, handleRunFinished, handleRunStarted } from "./handle-run.ts";
import { handleTick } from "./handle-tick.ts";
import { noteAffectedStages } from "./rerun-affected.ts";
import { schedule } from "./schedule.ts";
import { computeSyncEffects } from "./sync-effects.ts";
import { computeCleanupEffects } from "./clean-up-branches.ts";
import { computeLabelEffects, recordLabelEnsured } from "./plan-labels.ts";
import { computePlanFileEffects } from "./plan-file-lifecycle.ts";
import { applyForkInfo, handleTargetSynced } from "./fork-target.ts";

export type StepResult = { state: PlanState; effects: Effect[] };

/** `step` was called without a plan state for an event other than `plan.opened`: a bug in the caller. */
export class MissingPlanStateError extends Error {
  override name = "MissingPlanStateError";
}

/**
 * The orchestrator: one pure function from the plan's state and one event to the next state and
 * the effects the app must carry out. The input state is never changed. Invalid moves are
 * recorded in `state.rejected`, never thrown. `state` may be null only for `plan.opened`; any
 * other event without a state throws `MissingPlanStateError` (the app must not route it here).
 */
export function step(state: PlanState | null, event: OrchestratorEvent): StepResult {
  if (state === null && event.type !== "plan.opened") {
    throw new MissingPlanStateError(`${event.type} for a plan loom has no state for`);
  }
  const draft = state === null ? null : structuredClone(state);
  const ctx: StepContext = { state: draft ?? createPlanStateFor(event), effects: [], at: event.at };
  let headMoved = false;
  if (ctx.state.closed && !AFTER_CLOSE.has(event.type)) {
    reject(ctx, null, `${event.type} ignored: the pull request is closed`);
    if (event.type === "command.received") replyClosed(ctx, event);
  } else {
    headMoved = apply(ctx, event, state === null);
    schedule(ctx);
  }
  ctx.state.updatedAt = Math.max(ctx.state.updatedAt, event.at);
  return {
    state: ctx.state,
    effects: [
      // The dispatches first (a first attempt's run starts from the merge point as it is when the
      // job checks it out: nothing of the dispatch waits for the renamed head), then the rename:
      // the outbox runs a plan's effects in order, each on the state as it is then, so the check
      // runs and the comment that follow it are made on the renamed head.
      ...ctx.effects,
      ...computePlanFileEffects(ctx.state),
      ...computeSyncEffects(state, ctx.state, headMoved),
      ...computeCleanupEffects(state, ctx.state),
      ...computeLabelEffects(state, ctx.state),
    ],
  };
}

/** Events a closed plan still takes: a reopen, and records of what the app already did. */
const AFTER_CLOSE: ReadonlySet<OrchestratorEvent["type"]> = new Set([
  "plan.opened",
  "checkRun.created",
  "label.ensured",
  "planFile.renamed",
  "planFile.renameFailed",
  "command.refused",
  "target.synced",
]);

function createPlanStateFor(event: OrchestratorEvent): PlanState {
  if (event.type !== "plan.opened")
    throw new MissingPlanStateError(`${event.type} for a plan loom has no state for`);
  return createPlanState(event);
}

/** Applies one event to the draft; returns true when the pull request's head moved. */
function apply(ctx: StepContext, event: OrchestratorEvent, fresh: boolean): boolean {
  switch (event.type) {
    case "plan.opened":
      if (!fresh) {
        const headMoved = ctx.state.pr.headSha !== event.pr.headSha;
        ctx.state.closed = false;
        ctx.state.settings = event.settings;
        ctx.state.trusted = event.trusted;
        moveHead(ctx, event.pr.headSha, { before: null });
        ctx.state.pr = { ...event.pr };
        applyForkInfo(ctx.state, event.fork);
        applyPlanChange(ctx, event.plan);
        reopenStages(ctx);
        applyLabels(ctx, event.labels);
        return headMoved;
      }
      applyForkInfo(ctx.state, event.fork);
      applyLabels(ctx, event.labels);
      return false;
    case "plan.changed":
      applyPlanChange(ctx, event.plan);
      if (event.untrusted === true) distrustPlan(ctx.state);
      applyLabels(ctx, ctx.state.labels);
      return false;
    case "plan.closed":
      closePlan(ctx, event.merged);
      return false;
    case "caller.read":
      ctx.state.settings = { ...ctx.state.settings, caller: event.caller };
      return false;
    case "head.moved":
      applyForkInfo(ctx.state, event.fork);
      if (isStalePush(ctx.state, event.headSha, event.before)) return false;
      if (event.headSha === ctx.state.pr.headSha) {
        confirmHead(ctx, event.before);
        return false;
      }
      moveHead(ctx, event.headSha, {
        before: event.before,
        ...(event.pushedAt === undefined ? {} : { pushedAt: event.pushedAt }),
      });
      if (event.changedPaths !== undefined) noteAffectedStages(ctx, event.changedPaths, event.headSha);
      return true;
    case "run.dispatched":
      handleRunDispatched(ctx, event);
      return false;
    case "run.started":
      handleRunStarted(ctx, event);
      return false;
    case "heartbeat.seen":
      handleHeartbeat(ctx, event);
      return false;
    case "run.finished":
      handleRunFinished(ctx, event);
      return false;
    case "merge.finished":
      return handleMergeFinished(ctx, event);
    case "merge.lost":
      handleMergeLost(ctx, event);
      return false;
    case "command.received":
      handleCommand(ctx, event);
      return false;
    case "command.refused":
      handleRefusal(ctx, event);
      return false;
    case "labels.changed":
      if (event.ignored !== undefined) ctx.state.ignoredLabels = [...event.ignored];
      applyLabels(ctx, event.labels);
      return false;
    case "checkRun.created":
      // A plan from before the record existed may have unrecorded runs: it keeps looking them up.
      if (ctx.state.checkRuns !== undefined)
        ctx.state.checkRuns[getCheckSlot(event.stageId)] = { headSha: event.headSha, id: event.checkRunId };
      return false;
    case "tick":
      handleTick(ctx);
      return false;
    case "label.ensured":
      recordLabelEnsured(ctx.state, event.name);
      return false;
    case "planFile.renamed": {
      // loom's own commit on the head it knew: the head moves now (its push webhook then changes
      // nothing), keeping an approval like loom's merges do.
      ctx.state.planFile = event.path;
      recordLoomHead(ctx, event.sha);
      if (ctx.state.pr.headSha !== event.parent) return false;
      // The commit moved the plan file and nothing else: the plan files are the ones loom knows.
      moveHead(ctx, event.sha, {
        before: event.parent,
        plansUntouched: true,
        tree: event.tree,
      });
      return true;
    }
    case "target.synced":
      handleTargetSynced(ctx, event);
      return false;
    case "planFile.renameFailed":
      ctx.state.planFileProblem = event.reason;
      return false;
  }
}

export { nextWakeAt } from "./next-wake-at.ts";

/**
 * The plan file changed in a commit loom made, not a person's push: whatever its author may do, the
 * plan now waits for a person's approval of its head (and of every later one).
 */
function distrustPlan(state: PlanState): void {
  state.trusted = false;
  state.approvedSha = null;
  delete state.approvalLost;
  state.distrusted = `the plan file changed in a commit loom made at ${state.pr.headSha.slice(0, 7)} (a stage's merge), not in a person's push`;
}
