import { addDownstream, findAffectedStages, isRerunnableDone } from "./find-affected-stages.ts";
import type { AffectedStage } from "./state.ts";
import { rerunStage } from "./rerun-stage.ts";
import type { ActionResult } from "./action-result.ts";
import type { StepContext } from "./step-context.ts";

/** A push as a change that affects stages (`the push of 1a2b3c4`): `forgetOwnPush` finds it by this text. */
function describePush(headSha: string): string {
  return `the push of ${headSha.slice(0, 7)}`;
}

/**
 * A person's push changed `changed` (null: not known) on head `headSha`: the completed stages it
 * affects (and those downstream) join the plan's affected set, shown on the plan's check run and
 * the status comment until a person re-runs them, or run again at once with `rerun: affected`
 * (within the budget: they queue like any stage). A push that affects none changes nothing.
 */
export function noteAffectedStages(
  ctx: StepContext,
  changed: readonly string[] | null,
  headSha: string,
): void {
  const cause = describePush(headSha);
  const found = findAffectedStages(ctx.state, changed, cause).map((stage) => ({ ...stage, push: headSha }));
  addAffectedStages(ctx, cause, found);
}

/**
 * Head `sha` proved to be loom's own commit (a merge or rename whose answer came after its push's
 * webhook): the stages only that push affected are not affected after all.
 */
export function forgetOwnPush(ctx: StepContext, sha: string): void {
  const { state } = ctx;
  const affected = state.affected ?? null;
  if (affected === null || !affected.stages.some((stage) => stage.push === sha)) return;
  const stages = affected.stages.filter((stage) => stage.push !== sha);
  const cause = affected.cause
    .split(", ")
    .filter((part) => part !== describePush(sha))
    .join(", ");
  state.affected = stages.length === 0 ? null : { ...affected, cause, stages };
}

/**
 * A new version of the plan file changed the definition of `changed` (stage ids): those completed
 * and merged, and every completed stage downstream, join the affected set like a push's.
 */
export function noteAffectedByPlanEdit(ctx: StepContext, changed: readonly string[]): void {
  const { state } = ctx;
  const direct = new Map(
    changed
      .filter((id) => isRerunnableDone(state, id))
      .map((id) => [id, "its definition changed in the plan file"] as const),
  );
  addAffectedStages(ctx, "the plan edit", addDownstream(state, direct));
}

/**
 * A push (`headSha`) dropped stage `stageId`'s merge: its completed dependents, and everything
 * downstream of them, built on it and join the affected set. The stage itself is merged again.
 */
export function noteAffectedByLostMerge(ctx: StepContext, stageId: string, headSha: string): void {
  const { state } = ctx;
  const direct = new Map(
    state.order
      .filter(
        (id) => state.stages[id]?.dependencies.includes(stageId) === true && isRerunnableDone(state, id),
      )
      .map((id) => [id, `it builds on \`${stageId}\`, whose merge the push dropped`] as const),
  );
  addAffectedStages(ctx, describePush(headSha), addDownstream(state, direct));
}

/** `found` joins the affected set (`cause` the change); with `rerun: affected` it runs at once. */
function addAffectedStages(ctx: StepContext, cause: string, found: readonly AffectedStage[]): void {
  const { state } = ctx;
  if (found.length === 0) return;
  const earlier = state.affected ?? null;
  const known = new Set(earlier?.stages.map((stage) => stage.id) ?? []);
  const stages = [...(earlier?.stages ?? []), ...found.filter((stage) => !known.has(stage.id))];
  const ordered = state.order.flatMap((id) => stages.filter((stage) => stage.id === id));
  state.affected = {
    cause:
      earlier === null || earlier.cause.split(", ").includes(cause)
        ? (earlier?.cause ?? cause)
        : `${earlier.cause}, ${cause}`,
    at: ctx.at,
    stages: ordered,
  };
  if (state.settings.rerunAffected === true)
    startAffectedStages(ctx, "`rerun: affected` in `.github/loom.yml`");
}

/**
 * `/loom rerun affected` (or the plan check run's "Re-run affected"): every stage of the affected
 * set that is still completed and merged runs again, each saying why; the set is cleared. The
 * set holds everything downstream already, so none cascades further.
 */
export function startAffectedStages(ctx: StepContext, by: string): ActionResult {
  const { state } = ctx;
  const affected = state.affected ?? null;
  if (affected === null || affected.stages.length === 0)
    return { ok: false, reason: `no completed stage of ${state.plan.id} is affected by a change` };
  const started: string[] = [];
  for (const { id, why } of affected.stages) {
    const stage = state.stages[id];
    if (stage && !stage.removed && rerunStage(ctx, stage, `${why}; re-run by ${by}`, false))
      started.push(`\`${id}\``);
  }
  state.affected = null;
  if (started.length === 0)
    return { ok: false, reason: "none of the affected stages is completed and merged any more" };
  return { ok: true, text: `running again: ${started.join(", ")}` };
}
