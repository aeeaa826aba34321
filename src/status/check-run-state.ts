import type { StageState } from "../orchestrator/state.ts";

export const CHECK_STATUSES = ["queued", "in_progress", "completed"] as const;
export type CheckStatus = (typeof CHECK_STATUSES)[number];

/** The conclusions an app may set (`stale` is GitHub's own). */
export const CHECK_CONCLUSIONS = [
  "success",
  "failure",
  "neutral",
  "cancelled",
  "skipped",
  "timed_out",
  "action_required",
] as const;
export type CheckConclusion = (typeof CHECK_CONCLUSIONS)[number];

export type CheckState =
  { status: Exclude<CheckStatus, "completed"> } | { status: "completed"; conclusion: CheckConclusion };

/**
 * A stage's check run status and conclusion. Work still to do (waiting, running, a handoff or a
 * merge conflict being resolved, completed but not merged yet) is not completed; stages a person
 * has to act on conclude `failure` (or `action_required` for a review), so the pull request is
 * never green while a stage is stuck.
 */
export function getStageCheckState(stage: StageState): CheckState {
  switch (stage.status) {
    case "waiting-for-deps":
    case "queued":
      return { status: "queued" };
    case "executing":
    case "needs-handoff":
    case "merge-conflict":
      return { status: "in_progress" };
    case "completed":
      return stage.merged ? { status: "completed", conclusion: "success" } : { status: "in_progress" };
    case "skipped":
      return { status: "completed", conclusion: "skipped" };
    case "needs-human-review":
      return { status: "completed", conclusion: "action_required" };
    case "blocked":
      // Waiting out the backoff before an automatic retry: nobody has to act yet.
      return isAwaitingRetry(stage) ? { status: "queued" } : { status: "completed", conclusion: "failure" };
    case "completed-with-failures":
    case "merge-blocked":
      return { status: "completed", conclusion: "failure" };
  }
}

/** A crashed, hung or timed-out stage whose automatic retry is scheduled (not blocked by a person or by exhausted retries). */
export function isAwaitingRetry(stage: StageState): boolean {
  return stage.status === "blocked" && stage.blockedBy === null && stage.retryAt !== null;
}

/** Stage statuses that need a person before anything else happens. */
export function isStuck(stage: StageState): boolean {
  const state = getStageCheckState(stage);
  return state.status === "completed" && state.conclusion !== "success" && state.conclusion !== "skipped";
}
