import type { OrchestratorEvent, PlanSpec } from "./events.ts";
import type { PlanState, StageState } from "./state.ts";
import type { StepContext } from "./step-context.ts";
import {
  addNote,
  cancelActiveSession,
  findActiveSession,
  makeBranchPrefix,
  moveStage,
} from "./step-context.ts";
import { noteAffectedByPlanEdit } from "./rerun-affected.ts";
import { isDependencySatisfied } from "../graph/ready-stages.ts";
import { requeueStage } from "./requeue-stage.ts";

type PlanOpened = Extract<OrchestratorEvent, { type: "plan.opened" }>;

/** A stage as it enters the plan: waiting for its dependencies, nothing run yet. */
export function createStageState(spec: PlanSpec["stages"][number]): StageState {
  return {
    id: spec.id,
    name: spec.name,
    dependencies: [...spec.dependencies],
    stageType: spec.stageType,
    status: "waiting-for-deps",
    merged: false,
    attempt: 0,
    failures: 0,
    sessions: [],
    retryAt: null,
    skippedBy: null,
    blockedBy: null,
    removed: false,
    notes: [],
  };
}

/** A fresh plan state: every stage waiting for its dependencies, labels not applied yet. */
export function createPlanState(event: PlanOpened): PlanState {
  const stages: Record<string, StageState> = {};
  const order: string[] = [];
  for (const spec of event.plan.stages) {
    if (stages[spec.id]) continue;
    stages[spec.id] = createStageState(spec);
    order.push(spec.id);
  }
  return {
    plan: event.plan,
    settings: event.settings,
    pr: { ...event.pr },
    branchPrefix: makeBranchPrefix(event.pr.number, event.plan.id),
    ...(event.sharedPull === true ? { checkNamesWithPlan: true } : {}),
    trusted: event.trusted,
    approvedSha: null,
    hold: false,
    closed: false,
    labels: [],
    stages,
    checkRuns: {},
    order,
    rejected: [],
    updatedAt: event.at,
  };
}

/**
 * A new version of the plan file: new stages join, stages that never ran and are gone from the
 * file go, stages that ran keep their history and are flagged `removed` (they are never
 * dispatched again; a running session is cancelled). Kept stages take the new name, type and
 * dependencies; a queued stage whose new dependencies are not ready waits again. Completed stages
 * whose definition changed, and those downstream, join the affected set (`noteAffectedByPlanEdit`).
 */
export function applyPlanChange(ctx: StepContext, plan: PlanSpec): void {
  const { state } = ctx;
  const specs = new Map(plan.stages.map((spec) => [spec.id, spec]));
  const before = new Map(state.plan.stages.map((spec) => [spec.id, spec.definition]));
  const redefined = plan.stages.flatMap((spec) => {
    const old = before.get(spec.id);
    return old !== undefined && spec.definition !== undefined && old !== spec.definition ? [spec.id] : [];
  });
  const order: string[] = [];
  for (const spec of specs.values()) {
    const existing = state.stages[spec.id];
    if (!existing) {
      state.stages[spec.id] = createStageState(spec);
      addNote(ctx, state.stages[spec.id]!, "added by a change to the plan file");
    } else {
      existing.name = spec.name;
      existing.dependencies = [...spec.dependencies];
      existing.stageType = spec.stageType;
      if (existing.removed) addNote(ctx, existing, "back in the plan file");
      existing.removed = false;
    }
    order.push(spec.id);
  }
  for (const id of state.order) {
    const stage = state.stages[id];
    if (!stage || specs.has(id)) continue;
    if (stage.sessions.length === 0 && (stage.status === "waiting-for-deps" || stage.status === "queued")) {
      delete state.stages[id];
      continue;
    }
    if (!stage.removed) {
      addNote(ctx, stage, "removed from the plan file; kept for its history");
      // Its running session is cancelled: the plan no longer asks for its work.
      if (findActiveSession(stage) !== undefined) {
        cancelActiveSession(ctx, stage, "removed from the plan file");
        if (stage.status === "merge-conflict") moveStage(ctx, stage, "merge-blocked");
        else moveStage(ctx, stage, "blocked");
      }
    }
    stage.removed = true;
    order.push(id);
  }
  state.order = order;
  state.plan = plan;
  noteAffectedByPlanEdit(ctx, redefined);
  for (const id of order) {
    const stage = state.stages[id]!;
    if (stage.status !== "queued") continue;
    if (!stage.dependencies.every((dep) => isDependencySatisfied(state.stages[dep]))) {
      moveStage(
        ctx,
        stage,
        "waiting-for-deps",
        "waiting again: the plan file gave it dependencies that are not ready",
      );
    }
  }
}

/** The pull request closed: cancel every running session; nothing is dispatched any more. */
export function closePlan(ctx: StepContext, merged: boolean): void {
  const { state } = ctx;
  state.closed = true;
  for (const id of state.order) {
    const stage = state.stages[id];
    if (!stage) continue;
    const why = `pull request ${merged ? "merged" : "closed"}`;
    cancelActiveSession(ctx, stage, why);
    stage.retryAt = null;
    if (stage.status === "executing") moveStage(ctx, stage, "blocked", `${why}: session cancelled`);
  }
}

/** The pull request was reopened: stages stopped by the close go back in line. */
export function reopenStages(ctx: StepContext): void {
  for (const id of ctx.state.order) {
    const stage = ctx.state.stages[id];
    if (
      !stage ||
      stage.removed ||
      stage.status !== "blocked" ||
      stage.blockedBy !== null ||
      stage.retryAt !== null
    )
      continue;
    requeueStage(ctx, stage, "pull request reopened");
  }
}
