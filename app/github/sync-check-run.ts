import type { Effect } from "../../src/orchestrator/effects.ts";
import type { OrchestratorEvent } from "../../src/orchestrator/events.ts";
import { formatCheckRunExternalId, getCheckSlot } from "../../src/status/check-run-external-id.ts";
import { renderPlanCheckRun } from "../../src/status/render-plan-check-run.ts";
import { renderStageCheckRun } from "../../src/status/render-stage-check-run.ts";
import type { CheckRunView } from "../../src/status/render-stage-check-run.ts";
import { redactSecrets } from "../../src/redact/redact-secrets.ts";
import { countCall, getRepoUrl, readStatus, toEffectError } from "./effect-context.ts";
import type { EffectContext } from "./effect-context.ts";
import { findCheckRun, getCheckRunCacheKey } from "./find-check-run.ts";

type SyncCheckRun = Extract<Effect, { type: "syncCheckRun" }>;

/** What `POST`/`PATCH …/check-runs` take, minus name and head SHA. */
export type CheckRunPayload = {
  status: CheckRunView["status"];
  conclusion?: NonNullable<CheckRunView["conclusion"]>;
  completed_at?: string;
  details_url: string;
  external_id: string;
  output: { title: string; summary: string; text?: string };
  actions: CheckRunView["actions"];
};

export function renderCheckRunView(ctx: EffectContext, stageId: string | null): CheckRunView | null {
  const options = {
    now: ctx.now(),
    runUrl: (id: number) => `${getRepoUrl(ctx)}/actions/runs/${id}`,
    checkRunUrl: (id: number) => `${getRepoUrl(ctx)}/runs/${id}`,
  };
  if (stageId === null) return renderPlanCheckRun(ctx.state, options);
  if (!ctx.state.stages[stageId]) return null;
  return renderStageCheckRun(ctx.state, stageId, options);
}

function toPayload(ctx: EffectContext, view: CheckRunView, stageId: string | null): CheckRunPayload {
  const runId = stageId ? ctx.state.stages[stageId]?.sessions.at(-1)?.runId : null;
  const details = runId
    ? `${getRepoUrl(ctx)}/actions/runs/${runId}`
    : `${getRepoUrl(ctx)}/pull/${ctx.state.pr.number}`;
  return {
    status: view.status,
    ...(view.conclusion
      ? { conclusion: view.conclusion, completed_at: new Date(ctx.now()).toISOString() }
      : {}),
    details_url: details,
    external_id: formatCheckRunExternalId(ctx.state.plan.path, stageId),
    output: {
      title: redactSecrets(view.title),
      summary: redactSecrets(view.summary),
      ...(view.text ? { text: redactSecrets(view.text) } : {}),
    },
    actions: view.actions,
  };
}

/** The payload's output with the view's annotations (sent on create and on the completing update only). */
function withAnnotations(payload: CheckRunPayload, view: CheckRunView) {
  return { output: { ...payload.output, annotations: view.annotations } };
}

/** The payload without its timestamp, to tell whether an update would change anything. */
function fingerprint(payload: CheckRunPayload): string {
  return JSON.stringify({ ...payload, completed_at: undefined });
}

function isCompleted(written: string): boolean {
  return (JSON.parse(written) as { status?: unknown }).status === "completed";
}

type Recorded = { headSha: string; id: number };

/**
 * The id of this check's run on `target` and whether it is completed, as far as known
 * without asking GitHub: from the cache, or from the state's record. `looked: false` means GitHub
 * must be asked.
 */
function recall(
  ctx: EffectContext,
  cacheKey: string,
  recorded: Recorded | null,
  target: string,
): { looked: true; id: number | null; completed: boolean } | { looked: false } {
  const id = ctx.cache?.ids.get(cacheKey) ?? (recorded?.headSha === target ? recorded.id : null);
  if (id !== null) {
    const written = ctx.cache?.written.get(`check:${id}`);
    return written === undefined ? { looked: false } : { looked: true, id, completed: isCompleted(written) };
  }
  // Every check run the plan creates is recorded in its state before the plan's next effect runs,
  // so no record on this head means no run. A retried effect may have created one and died before
  // recording it: it looks, as do plans from before the record existed.
  if (ctx.state.checkRuns !== undefined && (ctx.attempt ?? 1) === 1)
    return { looked: true, id: null, completed: false };
  return { looked: false };
}

/**
 * Whether the run belongs on the pull request's head, in its checks list: the plan's always; a
 * stage's while it runs or needs a person. A stage waiting its turn or finished is written where
 * its run already is (see `computeSyncEffects`).
 */
function followsHead(stageId: string | null, view: CheckRunView): boolean {
  if (stageId === null || view.status === "in_progress") return true;
  return (
    view.status === "completed" &&
    !["success", "skipped", "neutral", "cancelled"].includes(view.conclusion ?? "")
  );
}

/**
 * Creates or updates the check run of a stage (`loom: <stage-id>`) or of the plan (`loom: <plan-id>`):
 * on the pull request's current head while it follows the head (`followsHead`), otherwise in place
 * on the head of the run loom recorded (a stage that finishes after the head moved is completed
 * where it ran: one write, not a new run plus a superseded one). Finds the run in the cache, in the
 * state's record of the runs loom created, or by asking GitHub (name and `external_id`); skips a
 * write that would change nothing; a check run that went from completed back to work (a retry) is
 * created anew on the head, so GitHub shows the newest state and its buttons. A run created on a
 * new head is recorded in the state (`checkRun.created`), and the run it replaces on the old head
 * is completed as superseded, before the new one is written.
 */
export async function syncCheckRun(ctx: EffectContext, effect: SyncCheckRun): Promise<OrchestratorEvent[]> {
  const view = renderCheckRunView(ctx, effect.stageId);
  if (!view) return [];
  const payload = toPayload(ctx, view, effect.stageId);
  const recorded = ctx.state.checkRuns?.[getCheckSlot(effect.stageId)] ?? null;
  const target =
    recorded !== null && !followsHead(effect.stageId, view) ? recorded.headSha : ctx.state.pr.headSha;
  // The run on the old head is completed first: should the write on the new head fail (a write
  // limit, GitHub down), the retry, or a newer sync replacing it, finds the old one done and records
  // the new one. The other order left a new run nobody recorded, spinning once the head moved again.
  if (recorded !== null && recorded.headSha !== target) {
    await completeSuperseded(ctx, effect.type, recorded, view.name);
  }
  const written = await writeCheckRun(ctx, effect, view, payload, recorded, target);
  if (recorded?.id === written.id && recorded.headSha === written.headSha) return [];
  return [
    {
      type: "checkRun.created",
      at: ctx.now(),
      stageId: effect.stageId,
      headSha: written.headSha,
      checkRunId: written.id,
    },
  ];
}

/** Writes the run on `target` (updating the one there, or creating one); a reopened run is created on the head. */
async function writeCheckRun(
  ctx: EffectContext,
  effect: SyncCheckRun,
  view: CheckRunView,
  payload: CheckRunPayload,
  recorded: Recorded | null,
  target: string,
): Promise<Recorded> {
  const cacheKey = getCheckRunCacheKey(ctx, target, payload.external_id);
  const known = recall(ctx, cacheKey, recorded, target);
  let id: number | null;
  let wasCompleted: boolean;
  if (known.looked) {
    id = known.id;
    wasCompleted = known.completed;
  } else {
    const found = await findCheckRun(ctx, effect.type, target, view.name, payload.external_id);
    id = found?.id ?? null;
    wasCompleted = found?.status === "completed";
  }
  const reopened = wasCompleted && view.status !== "completed";
  if (id !== null && !reopened) {
    if (ctx.cache?.written.get(`check:${id}`) === fingerprint(payload)) return { id, headSha: target };
    // The update that completes the run carries its annotations (once: GitHub appends them).
    const completing = !wasCompleted && view.status === "completed" && (view.annotations?.length ?? 0) > 0;
    countCall(ctx.calls, effect.type);
    try {
      await ctx.octokit.rest.checks.update({
        owner: ctx.owner,
        repo: ctx.repo,
        check_run_id: id,
        ...payload,
        ...(completing ? withAnnotations(payload, view) : {}),
      });
      ctx.cache?.ids.set(cacheKey, id);
      ctx.cache?.written.set(`check:${id}`, fingerprint(payload));
      return { id, headSha: target };
    } catch (error) {
      if (readStatus(error) !== 404) throw toEffectError(`updating check run ${view.name}`, error);
      ctx.cache?.ids.delete(cacheKey);
    }
  }
  const headSha = ctx.state.pr.headSha;
  countCall(ctx.calls, effect.type);
  try {
    const { data } = await ctx.octokit.rest.checks.create({
      owner: ctx.owner,
      repo: ctx.repo,
      name: view.name,
      head_sha: headSha,
      ...(payload.status === "in_progress" ? { started_at: new Date(ctx.now()).toISOString() } : {}),
      ...payload,
      // Annotations go with the create only: GitHub appends those of every update to the run.
      ...(view.annotations?.length ? withAnnotations(payload, view) : {}),
    });
    ctx.cache?.ids.set(getCheckRunCacheKey(ctx, headSha, payload.external_id), data.id);
    ctx.cache?.written.set(`check:${data.id}`, fingerprint(payload));
    return { id: data.id, headSha };
  } catch (error) {
    throw toEffectError(`creating check run ${view.name}`, error);
  }
}

const SUPERSEDED = JSON.stringify({ status: "completed", superseded: true });

/**
 * Completes the run an older head still shows as queued or in progress, as `neutral` (GitHub's own
 * `stale` is not for apps) with a pointer to the current head, so nobody browsing the old commit
 * sees loom spinning forever. Completed runs keep their conclusion; a run gone is fine.
 */
async function completeSuperseded(
  ctx: EffectContext,
  label: string,
  old: Recorded,
  name: string,
): Promise<void> {
  const written = ctx.cache?.written.get(`check:${old.id}`);
  try {
    if (written === undefined) {
      countCall(ctx.calls, label);
      const { data } = await ctx.octokit.rest.checks.get({
        owner: ctx.owner,
        repo: ctx.repo,
        check_run_id: old.id,
      });
      if (data.status === "completed") return;
    } else if (isCompleted(written)) {
      return;
    }
    const head = ctx.state.pr.headSha;
    const short = head.slice(0, 7);
    countCall(ctx.calls, label);
    await ctx.octokit.rest.checks.update({
      owner: ctx.owner,
      repo: ctx.repo,
      check_run_id: old.id,
      status: "completed",
      conclusion: "neutral",
      completed_at: new Date(ctx.now()).toISOString(),
      output: {
        title: `Superseded: the head moved to ${short}`,
        summary:
          `This commit is no longer the pull request's head, so loom stopped updating this check run. ` +
          `The current \`${name}\` is on [\`${short}\`](${getRepoUrl(ctx)}/commit/${head}).`,
      },
      actions: [],
    });
    ctx.cache?.written.set(`check:${old.id}`, SUPERSEDED);
  } catch (error) {
    if (readStatus(error) === 404) return;
    throw toEffectError(`completing superseded check run ${name}`, error);
  }
}
