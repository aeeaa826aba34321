import { z } from "zod";
import type { PlanKey, PlanRecord } from "../store/store.ts";
import type { EngineDeps } from "./engine-deps.ts";
import { readStoredPlan } from "./stored-plan.ts";
import type { StoredPlan, StoredPlanReader } from "./stored-plan.ts";

export type LoadedPlan = { key: PlanKey; planKey: string; stored: StoredPlan };

/** The active plans of one pull request, parsed, in plan path order. */
export async function loadPlansOfPull(
  deps: EngineDeps,
  repo: { owner: string; repo: string },
  pr: number,
): Promise<LoadedPlan[]> {
  const records = await deps.store.listPlansForPull(repo.owner, repo.repo, pr);
  return records
    .filter((record) => record.active)
    .map((record) => ({
      key: record.key,
      planKey: record.planKey,
      stored: readStoredPlan(record),
    }));
}

/** Whether a plan's key is in `repo` (GitHub's owner and repository names ignore case). */
export function isPlanInRepo(key: PlanKey, repo: { owner: string; repo: string }): boolean {
  return (
    key.owner.toLowerCase() === repo.owner.toLowerCase() && key.repo.toLowerCase() === repo.repo.toLowerCase()
  );
}

export type StageMatch = { ok: true; plan: LoadedPlan; stageId: string } | { ok: false; problem: string };

/** Finds the plan a stage reference means: qualified `<plan-id>/<stage>`, or a stage id unique in the pull request. */
export function findStage(plans: LoadedPlan[], ref: { planId: string | null; stageId: string }): StageMatch {
  const candidates = plans.filter(
    (plan) =>
      (ref.planId === null || plan.stored.state.plan.id === ref.planId) &&
      plan.stored.state.stages[ref.stageId] !== undefined,
  );
  const shown = ref.planId === null ? ref.stageId : `${ref.planId}/${ref.stageId}`;
  const [only, ...others] = candidates;
  if (only === undefined) return { ok: false, problem: `there is no stage \`${shown}\`.` };
  if (others.length > 0) {
    return { ok: false, problem: `\`${shown}\` is in several plans; write \`<plan-id>/${ref.stageId}\`.` };
  }
  return { ok: true, plan: only, stageId: ref.stageId };
}

export function describePlans(plans: LoadedPlan[]): { planId: string; stageIds: string[] }[] {
  return plans.map((plan) => ({ planId: plan.stored.state.plan.id, stageIds: [...plan.stored.state.order] }));
}

/** The merge SHAs loom recorded in a plan's state (`loomHeads`; none in plans from before it kept them). */
const LoomHeads = z.object({ loomHeads: z.array(z.string()).optional() }).loose();

/**
 * Whether the pull request's head `sha` is one loom produced: pushed with loom's own identity
 * (`sentByLoom`), or a merge SHA loom recorded for any plan of the pull request. A plan file first
 * seen at such a head came in through a stage branch, not from a person, so it waits for a
 * person's approval whoever opened the pull request. Judging by the sender here only ever asks
 * for an approval, never skips one. `read` is the delivery's reader: each record is read once.
 */
export function isLoomProducedHead(
  records: PlanRecord[],
  sha: string,
  sentByLoom: boolean,
  read: StoredPlanReader,
): boolean {
  if (sentByLoom) return true;
  return records.some((record) => {
    const parsed = LoomHeads.safeParse(read(record).state);
    return parsed.success && (parsed.data.loomHeads ?? []).includes(sha);
  });
}
