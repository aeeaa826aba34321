import { readStoredPlan } from "../../app/engine/stored-plan.ts";
import type { StageState } from "../../src/orchestrator/state.ts";
import type { PullRecord } from "./e2e-requests.ts";
import { OWNER, REPO, type E2E } from "./harness.ts";

/** A stage as the app's store holds it now (undefined before the plan is stored). */
export async function readStageState(
  e2e: E2E,
  pull: PullRecord,
  stageId: string,
): Promise<StageState | undefined> {
  for (const record of await e2e.store.listPlansForPull(OWNER, REPO, pull.number)) {
    const stage = readStoredPlan(record).state.stages[stageId];
    if (stage) return stage;
  }
  return undefined;
}
