import type { Effect } from "../../src/orchestrator/effects.ts";
import type { OrchestratorEvent } from "../../src/orchestrator/events.ts";
import { getStatusCommentMarker, renderStatusComment } from "../../src/status/render-status-comment.ts";
import { redactSecrets } from "../../src/redact/redact-secrets.ts";
import { countCall, getRepoUrl, readStatus, toEffectError } from "./effect-context.ts";
import type { EffectContext } from "./effect-context.ts";

type SyncStatusComment = Extract<Effect, { type: "syncStatusComment" }>;

/** Pages of pull request comments searched for the marker (100 each). */
const MAX_PAGES = 10;

type Comment = { id: number; body?: string; user: { login: string; type: string } | null };

function isOurs(ctx: EffectContext, comment: Comment, marker: string): boolean {
  if (!comment.body?.startsWith(marker)) return false;
  if (ctx.config.botLogin) return comment.user?.login === ctx.config.botLogin;
  return comment.user?.type === "Bot";
}

/** The id of the plan's status comment (found by its marker, written by a bot), or null. */
export async function findStatusComment(ctx: EffectContext, label: string): Promise<number | null> {
  const marker = getStatusCommentMarker(ctx.state.plan.path);
  for (let page = 1; page <= MAX_PAGES; page++) {
    countCall(ctx.calls, label);
    let comments: Comment[];
    try {
      ({ data: comments } = await ctx.octokit.rest.issues.listComments({
        owner: ctx.owner,
        repo: ctx.repo,
        issue_number: ctx.state.pr.number,
        per_page: 100,
        page,
      }));
    } catch (error) {
      throw toEffectError("listing pull request comments", error);
    }
    const found = comments.find((c) => isOurs(ctx, c, marker));
    if (found) return found.id;
    if (comments.length < 100) return null;
  }
  return null;
}

/**
 * Keeps one sticky status comment per plan: found by `<!-- loom:status:<planPath> -->` (only a
 * bot's comment counts, so nobody can make loom edit their comment), updated in place, created
 * when missing. Never a second one: the id is remembered and looked up before creating. An update
 * that would not change the body is skipped.
 */
export async function syncStatusComment(
  ctx: EffectContext,
  effect: SyncStatusComment,
): Promise<OrchestratorEvent[]> {
  const body = redactSecrets(
    renderStatusComment(ctx.state, { now: ctx.now(), checkRunUrl: (id) => `${getRepoUrl(ctx)}/runs/${id}` }),
  );
  const cacheKey = `comment:${ctx.owner}/${ctx.repo}#${ctx.state.pr.number}:${ctx.state.plan.path}`;
  let id = ctx.cache?.ids.get(cacheKey) ?? (await findStatusComment(ctx, effect.type));
  if (id !== null) {
    if (ctx.cache?.written.get(`comment:${id}`) === body) return [];
    countCall(ctx.calls, effect.type);
    try {
      await ctx.octokit.rest.issues.updateComment({ owner: ctx.owner, repo: ctx.repo, comment_id: id, body });
      ctx.cache?.ids.set(cacheKey, id);
      ctx.cache?.written.set(`comment:${id}`, body);
      return [];
    } catch (error) {
      if (readStatus(error) !== 404) throw toEffectError("updating the status comment", error);
      ctx.cache?.ids.delete(cacheKey);
      id = await findStatusComment(ctx, effect.type);
      if (id !== null) throw toEffectError("updating the status comment", error);
    }
  }
  countCall(ctx.calls, effect.type);
  try {
    const { data } = await ctx.octokit.rest.issues.createComment({
      owner: ctx.owner,
      repo: ctx.repo,
      issue_number: ctx.state.pr.number,
      body,
    });
    ctx.cache?.ids.set(cacheKey, data.id);
    ctx.cache?.written.set(`comment:${data.id}`, body);
  } catch (error) {
    throw toEffectError("creating the status comment", error);
  }
  return [];
}
