import type { OrchestratorEvent, RunOutcome } from "./events.ts";
import type { Session, StageState } from "./state.ts";
import type { StepContext } from "./step-context.ts";
import { addNote, emit, endSession, findSession, makeStageKey, moveStage, reject } from "./step-context.ts";
import { scheduleRetry } from "./schedule-retry.ts";
import { requestMerge } from "./handle-merge.ts";
import { holdForMerge, isMergedByPerson } from "./merge-by-person.ts";
import { closeContinuation } from "./continue-stage.ts";
import { closeAmendCheck, holdForAdjudication } from "./adjudicate.ts";

/**
 * The session failed its checks and disputed one of the criteria that failed (a model session's
 * `dispute.json`; a check-only run disputes nothing).
 */
function isDisputed(session: Session): boolean {
  return (
    session.kind !== "check" &&
    session.kind !== "merge" &&
    session.outcome === "completed-with-failures" &&
    session.report?.dispute !== undefined
  );
}

type RunEvent = Extract<
  OrchestratorEvent,
  { type: "run.dispatched" | "run.started" | "heartbeat.seen" | "run.finished" }
>;

/** The stage and session a run event is about, or null (recorded as rejected) when loom knows neither. */
function locate(ctx: StepContext, event: RunEvent): { stage: StageState; session: Session } | null {
  const stage = ctx.state.stages[event.stageId];
  const session = stage ? findSession(stage, event.attempt) : undefined;
  if (!stage || !session) {
    reject(ctx, event.stageId, `${event.type} for unknown stage or attempt ${event.attempt}`);
    return null;
  }
  // The run loom recorded for this attempt is the only one that speaks for it.
  if (event.type !== "heartbeat.seen" && session.runId !== null && event.runId !== session.runId) {
    reject(
      ctx,
      stage.id,
      `${event.type} from run ${event.runId}, not run ${session.runId} loom recorded for attempt ${event.attempt}`,
    );
    return null;
  }
  return { stage, session };
}

export function handleRunDispatched(
  ctx: StepContext,
  event: Extract<RunEvent, { type: "run.dispatched" }>,
): void {
  const found = locate(ctx, event);
  if (!found) return;
  const { stage, session } = found;
  session.runId = event.runId;
  if (session.status === "cancelled" || session.status === "hung") {
    // Given up on before the app knew the run: cancel it now that it has an id.
    emit(ctx, {
      type: "cancelRun",
      key: makeStageKey(ctx.state, stage.id, session.attempt, "cancel"),
      stageId: stage.id,
      runId: event.runId,
    });
    return;
  }
  session.lastSeenAt = Math.max(session.lastSeenAt, event.at);
}

export function handleRunStarted(ctx: StepContext, event: Extract<RunEvent, { type: "run.started" }>): void {
  const found = locate(ctx, event);
  if (!found) return;
  const { stage, session } = found;
  session.runId = event.runId;
  if (session.status !== "spawning") return;
  endSession(ctx, stage.id, session, "running");
  session.startedAt = event.at;
  session.lastSeenAt = Math.max(session.lastSeenAt, event.at);
}

export function handleHeartbeat(
  ctx: StepContext,
  event: Extract<RunEvent, { type: "heartbeat.seen" }>,
): void {
  const found = locate(ctx, event);
  if (!found) return;
  const { stage, session } = found;
  if (session.status !== "spawning" && session.status !== "running") {
    reject(ctx, stage.id, `heartbeat for attempt ${session.attempt}, which is already ${session.status}`);
    return;
  }
  if (session.status === "spawning") {
    endSession(ctx, stage.id, session, "running");
    session.startedAt = event.at;
  }
  // The same heartbeat read again (a reconcile pass) is no sign of life.
  if (session.lastHeartbeat !== null && event.heartbeat.timestamp <= session.lastHeartbeat.timestamp) return;
  session.lastHeartbeat = event.heartbeat;
  session.lastSeenAt = Math.max(session.lastSeenAt, event.at);
}

/** How the session ends for each run outcome. */
const SESSION_END: Record<RunOutcome, Session["status"]> = {
  completed: "completed",
  "completed-with-failures": "completed",
  "needs-handoff": "context-exhausted",
  crashed: "crashed",
  hung: "hung",
  "timed-out": "crashed",
  cancelled: "cancelled",
};

export function handleRunFinished(
  ctx: StepContext,
  event: Extract<RunEvent, { type: "run.finished" }>,
): void {
  const found = locate(ctx, event);
  if (!found) return;
  const { stage, session } = found;
  if (session.status !== "spawning" && session.status !== "running") {
    reject(ctx, stage.id, `run.finished for attempt ${session.attempt}, which is already ${session.status}`);
    return;
  }
  session.runId = event.runId;
  session.outcome = event.outcome;
  session.detail = event.detail;
  if (event.report !== undefined) session.report = event.report;
  endSession(ctx, stage.id, session, SESSION_END[event.outcome]);
  // A disputed run's checks ran on this commit too: an amendment re-checks exactly it.
  if (event.outcome === "completed" || isDisputed(session)) {
    if (event.headSha === undefined) delete stage.checkedSha;
    else stage.checkedSha = event.headSha;
  }
  if (session.kind === "merge") finishMergeSession(ctx, stage, session, event.outcome);
  else finishStageSession(ctx, stage, session, event.outcome);
}

function finishStageSession(
  ctx: StepContext,
  stage: StageState,
  session: Session,
  outcome: RunOutcome,
): void {
  const detail = session.detail ?? "";
  switch (outcome) {
    case "completed":
      closeContinuation(stage, session);
      closeAmendCheck(ctx, stage, session);
      if (isMergedByPerson(ctx.state.plan, stage.id))
        holdForMerge(ctx, stage, `attempt ${session.attempt}: completed`);
      else if (moveStage(ctx, stage, "completed", `attempt ${session.attempt}: completed`))
        requestMerge(ctx, stage);
      return;
    case "completed-with-failures": {
      closeContinuation(stage, session);
      closeAmendCheck(ctx, stage, session);
      const dispute = isDisputed(session) ? session.report?.dispute : undefined;
      if (dispute !== undefined) {
        holdForAdjudication(ctx, stage, session, dispute);
        return;
      }
      moveStage(
        ctx,
        stage,
        "completed-with-failures",
        `attempt ${session.attempt}: acceptance failed: ${detail}`,
      );
      return;
    }
    case "needs-handoff":
      if (
        moveStage(
          ctx,
          stage,
          "needs-handoff",
          `attempt ${session.attempt}: context exhausted, handoff written`,
        )
      ) {
        moveStage(ctx, stage, "queued", "queued: a recovery session continues from the handoff");
      }
      return;
    case "crashed":
    case "hung":
    case "timed-out":
      scheduleRetry(ctx, stage, `attempt ${session.attempt} ${outcome}: ${detail}`);
      return;
    case "cancelled":
      moveStage(
        ctx,
        stage,
        "blocked",
        `attempt ${session.attempt}: run cancelled on GitHub; \`/loom retry\` to run again`,
      );
      stage.blockedBy = "command";
      return;
  }
}

function finishMergeSession(
  ctx: StepContext,
  stage: StageState,
  session: Session,
  outcome: RunOutcome,
): void {
  const detail = session.detail ?? "";
  switch (outcome) {
    case "completed": {
      const why = `attempt ${session.attempt}: merge session resolved the conflict`;
      // The resolution is the session's own commit, which no person has seen: it waits again.
      if (isMergedByPerson(ctx.state.plan, stage.id)) holdForMerge(ctx, stage, why);
      else if (moveStage(ctx, stage, "completed", why)) requestMerge(ctx, stage);
      return;
    }
    case "needs-handoff":
      addNote(
        ctx,
        stage,
        `attempt ${session.attempt}: merge session ran out of context; another one continues`,
      );
      return;
    case "completed-with-failures":
    case "cancelled":
      moveStage(
        ctx,
        stage,
        "merge-blocked",
        `attempt ${session.attempt}: merge session ${outcome}: ${detail}`,
      );
      return;
    case "crashed":
    case "hung":
    case "timed-out":
      scheduleRetry(ctx, stage, `attempt ${session.attempt} (merge) ${outcome}: ${detail}`);
      return;
  }
}
