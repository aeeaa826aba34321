import type { PlanState, StageState } from "../orchestrator/state.ts";

/** A check-run button: label ≤ 20, description ≤ 40, identifier ≤ 20 characters. */
export type CheckRunAction = { label: string; description: string; identifier: string };

/** Button identifiers; the `requested_action` handler maps them to commands. */
export const ACTION_IDENTIFIERS = ["retry", "skip", "cancel", "approve"] as const;
export type ActionIdentifier = (typeof ACTION_IDENTIFIERS)[number];

const ACTIONS: Record<ActionIdentifier, CheckRunAction> = {
  retry: { label: "Retry", description: "Run this stage again", identifier: "retry" },
  skip: { label: "Skip", description: "Skip it; dependents may run", identifier: "skip" },
  cancel: { label: "Cancel", description: "Cancel the running session", identifier: "cancel" },
  approve: { label: "Approve", description: "Let this head SHA run loom", identifier: "approve" },
};

/** The buttons that fit a stage's state (at most 3). */
export function getStageActions(stage: StageState): CheckRunAction[] {
  switch (stage.status) {
    case "waiting-for-deps":
    case "queued":
      return [ACTIONS.skip];
    case "executing":
    case "needs-handoff":
    case "merge-conflict":
      return [ACTIONS.cancel, ACTIONS.skip];
    case "blocked":
    case "completed-with-failures":
    case "merge-blocked":
    case "needs-human-review":
      return [ACTIONS.retry, ACTIONS.skip];
    case "skipped":
      return [ACTIONS.retry];
    case "completed":
      return [];
  }
}

/** The plan's buttons: Approve while an untrusted plan waits for approval of its head SHA. */
export function getPlanActions(state: PlanState): CheckRunAction[] {
  return isAwaitingApproval(state) ? [ACTIONS.approve] : [];
}

export function isAwaitingApproval(state: PlanState): boolean {
  return !state.trusted && state.approvedSha !== state.pr.headSha && !state.closed;
}
