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

/**
 * The buttons that fit a stage's state (at most 3), each one a command the stage accepts now:
 * Skip until it is done; Cancel while a session runs or a retry is pending; Retry once it failed.
 * A stage blocked by a label offers no Retry (removing the label unblocks it); a skipped stage
 * stays skipped.
 */
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
      if (stage.blockedBy === "label") return [ACTIONS.skip];
      if (stage.retryAt !== null) return [ACTIONS.retry, ACTIONS.cancel, ACTIONS.skip];
      return [ACTIONS.retry, ACTIONS.skip];
    case "completed-with-failures":
    case "merge-blocked":
    case "needs-human-review":
      return [ACTIONS.retry, ACTIONS.skip];
    case "skipped":
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
