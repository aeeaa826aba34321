import type { Effect } from "../../src/orchestrator/effects.ts";
import type { OrchestratorEvent } from "../../src/orchestrator/events.ts";
import { formatCheckRunExternalId } from "../../src/status/check-run-external-id.ts";
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
  const options = { now: ctx.now(), runUrl: (id: number) => `${getRepoUrl(ctx)}/actions/runs/${id}` };
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

/** The payload without its timestamp, to tell whether an update would change anything. */
function fingerprint(payload: CheckRunPayload): string {
  return JSON.stringify({ ...payload, completed_at: undefined });
}

function isCompleted(written: string): boolean {
  return (JSON.parse(written) as { status?: unknown }).status === "completed";
}

/**
 * Creates or updates the check run of a stage (`loom: <stage-id>`) or of the plan (`loom: <plan-id>`)
 * on the pull request's current head SHA. Looks first (by name and `external_id`, cached per
 * process); skips a write that would change nothing; a check run that went from completed back to
 * work (a retry) is created anew, so GitHub shows the newest state and its buttons.
 */
export async function syncCheckRun(ctx: EffectContext, effect: SyncCheckRun): Promise<OrchestratorEvent[]> {
  const view = renderCheckRunView(ctx, effect.stageId);
  if (!view) return [];
  const headSha = ctx.state.pr.headSha;
  const payload = toPayload(ctx, view, effect.stageId);
  const cacheKey = getCheckRunCacheKey(ctx, headSha, payload.external_id);
  let id = ctx.cache?.ids.get(cacheKey) ?? null;
  let reopened: boolean;
  if (id === null) {
    const found = await findCheckRun(ctx, effect.type, headSha, view.name, payload.external_id);
    id = found?.id ?? null;
    reopened = found?.status === "completed" && view.status !== "completed";
  } else {
    const previous = ctx.cache?.written.get(`check:${id}`);
    reopened = previous !== undefined && isCompleted(previous) && view.status !== "completed";
  }
  if (id !== null && !reopened) {
    if (ctx.cache?.written.get(`check:${id}`) === fingerprint(payload)) return [];
    countCall(ctx.calls, effect.type);
    try {
      await ctx.octokit.rest.checks.update({
        owner: ctx.owner,
        repo: ctx.repo,
        check_run_id: id,
        ...payload,
      });
      ctx.cache?.written.set(`check:${id}`, fingerprint(payload));
      return [];
    } catch (error) {
      if (readStatus(error) !== 404) throw toEffectError(`updating check run ${view.name}`, error);
      ctx.cache?.ids.delete(cacheKey);
    }
  }
  countCall(ctx.calls, effect.type);
  try {
    const { data } = await ctx.octokit.rest.checks.create({
      owner: ctx.owner,
      repo: ctx.repo,
      name: view.name,
      head_sha: headSha,
      ...(payload.status === "in_progress" ? { started_at: new Date(ctx.now()).toISOString() } : {}),
      ...payload,
    });
    ctx.cache?.ids.set(cacheKey, data.id);
    ctx.cache?.written.set(`check:${data.id}`, fingerprint(payload));
  } catch (error) {
    throw toEffectError(`creating check run ${view.name}`, error);
  }
  return [];
}
