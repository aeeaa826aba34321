import { makeStageKey } from "../../src/orchestrator/step-context.ts";
import type { PlanState } from "../../src/orchestrator/state.ts";
import { isActiveSession } from "../../src/stage/session-transitions.ts";
import { judgeRunIdentity } from "../github/judge-run-identity.ts";
import type { RunIdentity } from "../github/judge-run-identity.ts";
import type { EngineDeps } from "./engine-deps.ts";
import { isPlanInRepo, type LoadedPlan } from "./plans-of-pull.ts";
import { readStoredPlan } from "./stored-plan.ts";

export type RunStage = { plan: LoadedPlan; stageId: string; attempt: number };

/**
 * Which plan and stage a workflow run belongs to: the session that recorded the run id (from
 * `return_run_details` or an earlier match); else, for a live session whose dispatch returned no
 * id yet, a run that is provably loom's own dispatch with that session's key (`judgeRunIdentity`:
 * the caller workflow, `workflow_dispatch` on the default branch, started by loom's bot, after the
 * dispatch). A run titled `loom <key>` by anyone else, or any run for a session that already has
 * its run id, belongs to nothing.
 */
export async function findRunStage(
  deps: EngineDeps,
  repo: { owner: string; repo: string },
  run: RunIdentity,
): Promise<RunStage | null> {
  const plans = await loadRepoPlans(deps, repo);
  const recorded = findRecorded(plans, run.id);
  if (recorded !== null) return recorded;
  const botLogin = await deps.getBotLogin();
  for (const plan of plans) {
    const { state, repo: settings } = plan.stored;
    for (const stageId of state.order) {
      for (const session of state.stages[stageId]?.sessions ?? []) {
        if (session.runId !== null || !isActiveSession(session)) continue;
        const refused = judgeRunIdentity(run, {
          workflowFile: settings.workflowFile,
          defaultBranch: settings.defaultBranch,
          botLogin,
          key: makeStageKey(state, stageId, session.attempt, "dispatch"),
          dispatchedAt: session.dispatchedAt,
        });
        if (refused === null) return { plan, stageId, attempt: session.attempt };
      }
    }
  }
  return null;
}

async function loadRepoPlans(deps: EngineDeps, repo: { owner: string; repo: string }): Promise<LoadedPlan[]> {
  return (await deps.store.listActivePlans())
    .filter((record) => isPlanInRepo(record.key, repo))
    .map((record) => ({ key: record.key, planKey: record.planKey, stored: readStoredPlan(record) }));
}

function findRecorded(plans: readonly LoadedPlan[], runId: number): RunStage | null {
  for (const plan of plans) {
    const found = findByRunId(plan.stored.state, runId);
    if (found) return { plan, ...found };
  }
  return null;
}

/** The plan and stage whose session recorded run `runId` (never a run matched by its title). */
export async function findRecordedRunStage(
  deps: EngineDeps,
  repo: { owner: string; repo: string },
  runId: number,
): Promise<RunStage | null> {
  return findRecorded(await loadRepoPlans(deps, repo), runId);
}

function findByRunId(state: PlanState, runId: number): { stageId: string; attempt: number } | null {
  for (const stageId of state.order) {
    const session = state.stages[stageId]?.sessions.find((candidate) => candidate.runId === runId);
    if (session) return { stageId, attempt: session.attempt };
  }
  return null;
}
