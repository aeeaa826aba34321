import type { OrchestratorEvent } from "../../src/orchestrator/events.ts";
import type { PlanRecord } from "../store/store.ts";
import { applyEvents } from "./apply-events.ts";
import type { EngineDeps } from "./engine-deps.ts";
import type { StoredPlanReader } from "./stored-plan.ts";
import { readTime } from "./webhook-fields.ts";
import type { PullRequestDelivery } from "./webhook-fields.ts";

/** Each running plan not yet on loom's own new head moves there (the reducer keeps an approval). */
export async function moveToOwnHead(
  deps: EngineDeps,
  known: PlanRecord[],
  stored: StoredPlanReader,
  delivery: PullRequestDelivery,
): Promise<void> {
  const pull = delivery.pull_request;
  const headAt = readTime(pull.updated_at);
  for (const record of known) {
    if (!record.active) continue;
    if (stored(record).state.pr.headSha === pull.head.sha) continue;
    const event: OrchestratorEvent = {
      type: "head.moved",
      at: deps.now(),
      headSha: pull.head.sha,
      before: delivery.before ?? null,
      ...(headAt === undefined ? {} : { pushedAt: headAt }),
    };
    await applyEvents(deps, { key: record.key, events: [event] });
  }
}
