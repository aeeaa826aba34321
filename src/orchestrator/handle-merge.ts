import type { OrchestratorEvent } from "./events.ts";
import type { StageState } from "./state.ts";
import type { StepContext } from "./step-context.ts";
import { moveHead, recordLoomHead } from "./move-head.ts";
import { getMergePoint } from "./make-target-branch.ts";
import { finishRerun } from "./rerun-stage.ts";
import { noteAffectedByLostMerge } from "./rerun-affected.ts";
import { requeueStage } from "./requeue-stage.ts";
import { addNote, emit, makeStageBranch, makeStageKey, moveStage, reject } from "./step-context.ts";

/**
 * Asks the app to merge the stage branch into the merge point (`getMergePoint`: the pull request's
 * head branch, or a fork plan's result branch).
 * The stage is `completed` and not yet `merged` while the merge is under way.
 */
export function requestMerge(ctx: StepContext, stage: StageState): void {
  const { state } = ctx;
  const count = countMergeRequests(stage) + 1;
  const base = getMergePoint(state);
  stage.notes.push({ at: ctx.at, text: `merge requested (#${count}) into ${base}` });
  const branch = makeStageBranch(state, stage.id);
  const sha = stage.checkedSha ?? undefined;
  const message = `loom: merge stage ${stage.id} (${stage.name}) of ${state.plan.id}`;
  emit(ctx, {
    type: "mergeBranch",
    key: makeStageKey(state, stage.id, stage.sessions.length, `merge:${count}`),
    stageId: stage.id,
    head: branch,
    base,
    // The checked commit, by SHA: a push to the stage branch after the checks is never merged.
    message: sha === undefined ? message : `${message}\n\nStage branch ${branch} at ${sha} (checked)`,
    ...(sha === undefined ? {} : { sha }),
  });
}

/** Merges asked for so far: notes are the stage's history, so this stays deterministic. */
function countMergeRequests(stage: StageState): number {
  return stage.notes.filter((note) => note.text.startsWith("merge requested")).length;
}

/**
 * How the stage's merge ended. Returns true when the pull request's head moved: loom's merge
 * commit, made on the head loom knew, is the head now.
 */
export function handleMergeFinished(
  ctx: StepContext,
  event: Extract<OrchestratorEvent, { type: "merge.finished" }>,
): boolean {
  const stage = ctx.state.stages[event.stageId];
  if (!stage) {
    reject(ctx, event.stageId, "merge.finished for an unknown stage");
    return false;
  }
  if (stage.status !== "completed" || stage.merged) {
    reject(
      ctx,
      stage.id,
      `merge.finished (${event.outcome}) while the stage is ${stage.status}${stage.merged ? ", merged" : ""}`,
    );
    return false;
  }
  switch (event.outcome) {
    case "merged":
    case "nothing-to-merge": {
      let moved = false;
      // A fork plan's merges move its result branch, never the pull request's head.
      if (event.outcome === "merged" && event.sha && !ctx.state.fork) {
        recordLoomHead(ctx, event.sha);
        // Made on the head loom knows: the head is loom's merge now, as its push will say.
        if (event.parent !== undefined && event.parent === ctx.state.pr.headSha) {
          moveHead(ctx, event.sha, {
            before: event.parent,
            plansUntouched: event.plansUntouched === true,
            tree: event.tree,
          });
          moved = true;
        }
      }
      stage.merged = true;
      delete stage.mergeLost;
      {
        const contained = stage.checkedSha ?? (event.outcome === "merged" ? event.sha : undefined);
        if (contained) stage.mergedSha = contained;
      }
      stage.notes.push({
        at: ctx.at,
        text:
          event.outcome === "merged"
            ? `merged into ${getMergePoint(ctx.state)}${event.sha ? ` at ${event.sha.slice(0, 7)}` : ""}`
            : "merged: nothing new to merge",
      });
      finishRerun(ctx, stage, event.outcome === "merged" ? (event.changedPaths ?? null) : []);
      return moved;
    }
    case "conflict":
      if (
        moveStage(
          ctx,
          stage,
          "merge-conflict",
          `merge conflict with ${getMergePoint(ctx.state)}: ${event.detail}; a merge session resolves it`,
        )
      ) {
        stage.failures = 0;
        stage.retryAt = null;
      }
      return false;
    case "branch-moved":
      // A merge a push dropped, whose branch is gone: nothing is left to merge, it runs again.
      if (stage.mergeLost === true && event.branchGone === true) {
        rerunLostStage(ctx, stage, event.detail);
        return false;
      }
      // A push after the checks: that commit was never checked, so the stage runs again on it.
      stage.checkedSha = null;
      moveStage(
        ctx,
        stage,
        "merge-blocked",
        `not merged: ${event.detail}; review that push, then \`/loom retry ${stage.id}\` runs the stage again on it`,
      );
      return false;
    case "error":
      moveStage(
        ctx,
        stage,
        "merge-blocked",
        `merge refused: ${event.detail}; \`/loom retry ${stage.id}\` to try again`,
      );
      return false;
  }
}

/**
 * A push removed a merged stage's commit from the pull request's head (force-push): the stage is
 * no longer merged, so its dependents that have not started wait. With the commit its checks ran
 * on it is merged again; without one (older plans) it waits for a person, saying why. A report
 * about a head that has moved on since is stale and ignored.
 */
export function handleMergeLost(
  ctx: StepContext,
  event: Extract<OrchestratorEvent, { type: "merge.lost" }>,
): void {
  const stage = ctx.state.stages[event.stageId];
  if (!stage?.merged) {
    reject(ctx, event.stageId, "merge.lost for a stage that is not merged");
    return;
  }
  if (event.headSha !== ctx.state.pr.headSha) {
    reject(ctx, stage.id, `merge.lost for head ${event.headSha.slice(0, 7)}, which is no longer the head`);
    return;
  }
  stage.merged = false;
  delete stage.mergedSha;
  const why = `${ctx.state.pr.headRef} at ${event.headSha.slice(0, 7)} no longer contains ${event.sha.slice(0, 7)} (a push rewrote its history)`;
  noteAffectedByLostMerge(ctx, stage.id, event.headSha);
  if (stage.status === "completed" && stage.checkedSha) {
    stage.mergeLost = true;
    addNote(ctx, stage, `${why}; merging the stage again`);
    requestMerge(ctx, stage);
    return;
  }
  moveStage(ctx, stage, "merge-blocked", `${why}; \`/loom retry ${stage.id}\` runs the stage again`);
}

/**
 * A stage whose merge a push dropped and whose branch is gone (deleted once the plan was done, or
 * by a person): its checked commit cannot be merged again, so it runs again on the current head
 * and is merged like any attempt. Its dependents are in the affected set already.
 */
function rerunLostStage(ctx: StepContext, stage: StageState, detail: string): void {
  delete stage.mergeLost;
  stage.checkedSha = null;
  stage.failures = 0;
  stage.retryAt = null;
  const why = `a push dropped its merge and its branch is gone (${detail})`;
  if (
    !moveStage(ctx, stage, "merge-blocked", `not merged again: ${why}; running it again on the current head`)
  )
    return;
  stage.rerun = { why, at: ctx.at, cascade: false, fromHead: true };
  requeueStage(ctx, stage, "queued: a new attempt replaces the dropped merge");
}
