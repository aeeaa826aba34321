import type { PlanRecord } from "../store/store.ts";
import { applyEvents } from "./apply-events.ts";
import type { EngineDeps } from "./engine-deps.ts";
import { readRepo } from "./webhook-fields.ts";
import type { PullRequestDelivery } from "./webhook-fields.ts";

/** A closed pull request (merged or not) closes its running plans. */
export async function closePlans(deps: EngineDeps, delivery: PullRequestDelivery): Promise<void> {
  const repo = readRepo(delivery);
  const known = await deps.store.listPlansForPull(repo.owner, repo.repo, delivery.pull_request.number);
  const merged = delivery.pull_request.merged === true;
  for (const record of known) {
    if (!record.active) continue;
    await applyEvents(deps, { key: record.key, events: [{ type: "plan.closed", at: deps.now(), merged }] });
  }
}

/** A plan file taken out of the pull request stops its plan. */
export async function closeRemovedPlans(
  deps: EngineDeps,
  known: PlanRecord[],
  paths: string[],
): Promise<void> {
  for (const record of known) {
    if (!record.active || paths.includes(record.key.planPath)) continue;
    await applyEvents(deps, {
      key: record.key,
      events: [{ type: "plan.closed", at: deps.now(), merged: false }],
    });
  }
}
