import type { StageState } from "./state.ts";

/**
 * The stage passed its checks and waits for a person to merge it (`auto_merge: false`): it is in
 * `needs-human-review` for that reason, not another one.
 */
export function isWaitingForMerge(stage: Pick<StageState, "status" | "mergeWaitSince">): boolean {
  return stage.status === "needs-human-review" && stage.mergeWaitSince !== undefined;
}
