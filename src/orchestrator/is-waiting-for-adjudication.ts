import type { StageState } from "./state.ts";

/**
 * A session disputed one of the stage's acceptance criteria and the stage waits in
 * `needs-human-review` for a person to amend the criterion (`/loom amend`) or reject the dispute
 * (`/loom reject`): the reference's `NeedsAdjudication`, with a person as the adjudicator.
 */
export function isWaitingForAdjudication(stage: Pick<StageState, "status" | "dispute">): boolean {
  return stage.status === "needs-human-review" && stage.dispute !== undefined;
}
