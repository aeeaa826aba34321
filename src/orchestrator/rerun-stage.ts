import { isDependencySatisfied } from "../graph/ready-stages.ts";
import { describeAffectingPath, findAffectingPath, MAX_TOUCHED_PATHS } from "./find-affecting-path.ts";
import type { StageState } from "./state.ts";
import type { StepContext } from "./step-context.ts";
import { addNote, moveStage } from "./step-context.ts";

/**
 * Re-opens a completed, merged stage to run again on the merge point's current head (its branch
 * is moved there before the dispatch): it waits for its dependencies when one of them runs again
 * too. `cascade`: once its new merge is done, its dependents whose `files` (or touched paths)
 * that merge changed run again as well. Its dependents that are done stay merged meanwhile.
 * Returns false (recorded) when the stage is not completed and merged.
 */
export function rerunStage(ctx: StepContext, stage: StageState, why: string, cascade: boolean): boolean {
  if (stage.status !== "completed" || !stage.merged) return false;
  const ready = stage.dependencies.every((dep) => isDependencySatisfied(ctx.state.stages[dep]));
  const note = `running again: ${why}${cascade ? "" : " (this stage only)"}`;
  if (!moveStage(ctx, stage, ready ? "queued" : "waiting-for-deps", note, { reopen: true })) return false;
  stage.merged = false;
  delete stage.mergedSha;
  stage.failures = 0;
  stage.retryAt = null;
  stage.rerun = { why, at: ctx.at, cascade, fromHead: true };
  return true;
}

/**
 * The stage's merge is done (`changed`: the paths it changed, null when not known, none when there
 * was nothing to merge). Its touched paths grow by them; when it was a re-run that cascades, each
 * completed, merged dependent whose `files` (or touched paths) it changed runs again, the others
 * are left as they are (a note on the stage says which and why).
 */
export function finishRerun(ctx: StepContext, stage: StageState, changed: readonly string[] | null): void {
  if (changed !== null && changed.length > 0)
    stage.touchedPaths = [...new Set([...(stage.touchedPaths ?? []), ...changed])].slice(
      0,
      MAX_TOUCHED_PATHS,
    );
  const rerun = stage.rerun;
  if (rerun === undefined) return;
  delete stage.rerun;
  if (!rerun.cascade) return;
  const { state } = ctx;
  const running: string[] = [];
  const kept: string[] = [];
  for (const id of state.order) {
    const dependent = state.stages[id];
    if (!dependent || dependent.removed || !dependent.dependencies.includes(stage.id)) continue;
    if (dependent.status !== "completed" || !dependent.merged) continue;
    const affecting = findAffectingPath(state, id, changed);
    if (affecting === null) {
      kept.push(`\`${id}\``);
      continue;
    }
    const why = `${stage.id}'s re-run changed ${describeAffectingPath(affecting)}, which it builds on`;
    if (rerunStage(ctx, dependent, why, true)) running.push(`\`${id}\``);
  }
  if (running.length > 0)
    addNote(ctx, stage, `re-run merged: dependents running again: ${running.join(", ")}`);
  if (kept.length > 0)
    addNote(
      ctx,
      stage,
      `re-run merged: left as they are (it changed nothing they build on): ${kept.join(", ")}`,
    );
}
