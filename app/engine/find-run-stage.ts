import type { PlanState } from "../../src/orchestrator/state.ts";
import type { EngineDeps } from "./engine-deps.ts";
import type { LoadedPlan } from "./plans-of-pull.ts";
import { readStoredPlan } from "./stored-plan.ts";

export type RunStage = { plan: LoadedPlan; stageId: string; attempt: number };

/** A dispatch key as the reducer writes it and the stage workflow puts in its run name. */
const RUN_KEY = /([0-9a-f]{12})-pr(\d+):([A-Za-z0-9_-]{1,128}):(\d+):[\w-]+/g;

/**
 * Which plan and stage a workflow run belongs to: the session that recorded the run id, else the
 * dispatch key in the run's name (`<blob-sha-12>-pr<n>:<stage>:<attempt>:<what>`), for a run whose
 * dispatch did not return its id.
 */
export async function findRunStage(
  deps: EngineDeps,
  repo: { owner: string; repo: string },
  runId: number,
  title: string,
): Promise<RunStage | null> {
  const plans = (await deps.store.listActivePlans())
    .filter(
      (record) =>
        record.key.owner.toLowerCase() === repo.owner.toLowerCase() &&
        record.key.repo.toLowerCase() === repo.repo.toLowerCase(),
    )
    .map((record) => ({
      key: record.key,
      planKey: record.planKey,
      stored: readStoredPlan(record.planKey, record.state),
    }));
  for (const plan of plans) {
    const found = findByRunId(plan.stored.state, runId);
    if (found) return { plan, ...found };
  }
  for (const match of title.matchAll(RUN_KEY)) {
    const [, prefix = "", pr = "", stageId = "", attempt = "0"] = match;
    const plan = plans.find(
      (candidate) =>
        candidate.key.pr === Number(pr) &&
        candidate.stored.state.plan.blobSha.startsWith(prefix) &&
        candidate.stored.state.stages[stageId]?.sessions.some(
          (session) => session.attempt === Number(attempt),
        ),
    );
    if (plan) return { plan, stageId, attempt: Number(attempt) };
  }
  return null;
}

function findByRunId(state: PlanState, runId: number): { stageId: string; attempt: number } | null {
  for (const stageId of state.order) {
    const session = state.stages[stageId]?.sessions.find((candidate) => candidate.runId === runId);
    if (session) return { stageId, attempt: session.attempt };
  }
  return null;
}
