import type { Effect } from "./effects.ts";

/** Effects that move a plan forward: claimed first. */
export const PROGRESS_LANE = 0;
/** Effects that only show the plan (stage check runs, replies, label definitions). */
export const DISPLAY_LANE = 1;
/**
 * The plan's own check run and the status comment: they link every stage's check run, so they are
 * written after the stage check runs waiting with them (a stage run re-created on a new head is
 * linked at once, with no second write of the overview).
 */
export const OVERVIEW_LANE = 2;

const DISPLAY: ReadonlySet<Effect["type"]> = new Set(["syncCheckRun", "reply", "ensureLabel"]);

/**
 * The outbox lane of an effect. A plan's effects still run one at a time, but a pending effect of
 * the progress lane (branch, dispatch, merge, cancel, rename, clean-up) runs before any pending
 * display effect of the same plan, so a dependent's dispatch never waits behind check-run and
 * status-comment writes. Display effects read the state when they run, so running them later
 * shows the newer state, never a wrong one. Branch deletion stays in the progress lane: it must
 * keep its order with a later creation of the same branch.
 */
export function effectLane(effect: Effect): number {
  if (effect.type === "syncStatusComment" || (effect.type === "syncCheckRun" && effect.stageId === null))
    return OVERVIEW_LANE;
  return DISPLAY.has(effect.type) ? DISPLAY_LANE : PROGRESS_LANE;
}
