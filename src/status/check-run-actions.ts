import type { PlanState, StageState } from "../orchestrator/state.ts";
import { isWaitingForAdjudication } from "../orchestrator/is-waiting-for-adjudication.ts";
import { isWaitingForMerge } from "../orchestrator/is-waiting-for-merge.ts";

/** A check-run button: label ≤ 20, description ≤ 40, identifier ≤ 20 characters. */
export type CheckRunAction = { label: string; description: string; identifier: string };

/**
 * Button identifiers; the `requested_action` handler maps them to commands (`parseActionIdentifier`).
 * Merge carries the commit it merges: `merge:` and the checked SHA's first 14 hex digits (GitHub
 * allows 20 characters), so a press merges what the check run showed or nothing.
 */
export const ACTION_IDENTIFIERS = [
  "retry",
  "skip",
  "cancel",
  "approve",
  "merge",
  "reject",
  "rerun-affected",
] as const;
export type ActionIdentifier = (typeof ACTION_IDENTIFIERS)[number];

/** Hex digits of the checked SHA the Merge button carries. */
const MERGE_SHA_DIGITS = 14;

const ACTIONS: Record<ActionIdentifier, CheckRunAction> = {
  retry: { label: "Retry", description: "Run this stage again", identifier: "retry" },
  skip: { label: "Skip", description: "Skip it; dependents may run", identifier: "skip" },
  cancel: { label: "Cancel", description: "Cancel the running session", identifier: "cancel" },
  approve: { label: "Approve", description: "Let this head SHA run loom", identifier: "approve" },
  merge: { label: "Merge", description: "Merge the commit checked", identifier: "merge" },
  reject: {
    label: "Reject dispute",
    description: "Keep the criterion; block the stage",
    identifier: "reject",
  },
  "rerun-affected": {
    label: "Re-run affected",
    description: "Run the affected stages again",
    identifier: "rerun-affected",
  },
};

/** The Merge button of a stage whose checks ran on `sha`. */
function makeMergeAction(sha: string): CheckRunAction {
  return { ...ACTIONS.merge, identifier: `merge:${sha.slice(0, MERGE_SHA_DIGITS)}` };
}

/** A pressed button's command, with the SHA a Merge button carries; null for identifiers loom never made. */
export function parseActionIdentifier(
  identifier: string | undefined,
): { action: ActionIdentifier; sha?: string } | null {
  const merge = new RegExp(`^merge:([0-9a-f]{${MERGE_SHA_DIGITS}})$`).exec(identifier ?? "");
  if (merge?.[1] !== undefined) return { action: "merge", sha: merge[1] };
  const action = ACTION_IDENTIFIERS.find((name) => name !== "merge" && name === identifier);
  return action === undefined ? null : { action };
}

/**
 * The buttons that fit a stage's state (at most 3), each one a command the stage accepts now:
 * Skip until it is done; Cancel while a session runs or a retry is pending; Retry once it failed;
 * Merge (with Retry and Skip) while it waits for a person to merge the commit its checks ran on.
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
      return [ACTIONS.retry, ACTIONS.skip];
    case "needs-human-review":
      if (isWaitingForAdjudication(stage)) return [ACTIONS.reject, ACTIONS.retry, ACTIONS.skip];
      return isWaitingForMerge(stage) && stage.checkedSha
        ? [makeMergeAction(stage.checkedSha), ACTIONS.retry, ACTIONS.skip]
        : [ACTIONS.retry, ACTIONS.skip];
    case "skipped":
    case "completed":
      return [];
  }
}

/**
 * The plan's buttons: Approve while an untrusted plan waits for approval of its head SHA;
 * Re-run affected while a change affects completed stages.
 */
export function getPlanActions(state: PlanState): CheckRunAction[] {
  return [
    ...(isAwaitingApproval(state) ? [ACTIONS.approve] : []),
    ...((state.affected?.stages.length ?? 0) > 0 && !state.closed ? [ACTIONS["rerun-affected"]] : []),
  ];
}

export function isAwaitingApproval(state: PlanState): boolean {
  return !state.trusted && state.approvedSha !== state.pr.headSha && !state.closed;
}
