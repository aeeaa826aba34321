import type { Effect } from "../../src/orchestrator/effects.ts";
import type { OrchestratorEvent } from "../../src/orchestrator/events.ts";
import { redactSecrets } from "../../src/redact/redact-secrets.ts";
import { countCall, readStatus, toEffectError } from "./effect-context.ts";
import type { EffectContext } from "./effect-context.ts";

type Reply = Extract<Effect, { type: "reply" }>;

/** Longest reply comment loom posts (GitHub allows 65,536). */
const REPLY_MAX = 4000;

/**
 * Answers a command where it came from: a reaction on the command's comment (a deleted comment is
 * fine), and, when there is a body, a short comment on the pull request. Buttons and re-runs get
 * no reaction (there is no comment to react to).
 */
export async function reply(ctx: EffectContext, effect: Reply): Promise<OrchestratorEvent[]> {
  if (effect.source.kind === "comment") {
    countCall(ctx.calls, effect.type);
    try {
      await ctx.octokit.rest.reactions.createForIssueComment({
        owner: ctx.owner,
        repo: ctx.repo,
        comment_id: effect.source.commentId,
        content: effect.reaction,
      });
    } catch (error) {
      if (readStatus(error) !== 404) throw toEffectError("reacting to the command", error);
    }
  }
  if (effect.body !== null) {
    const redacted = redactSecrets(effect.body);
    const text = redacted.length > REPLY_MAX ? `${redacted.slice(0, REPLY_MAX - 1)}…` : redacted;
    const marker = `<!-- loom:reply:${effect.key.replaceAll("--", "-&#45;")} -->`;
    const body = `${marker}\n${text}`;
    // A retried claim may have posted before it failed or its worker died: look before posting twice.
    if ((ctx.attempt ?? 1) > 1 && (await findReply(ctx, marker))) return [];
    countCall(ctx.calls, effect.type);
    try {
      await ctx.octokit.rest.issues.createComment({
        owner: ctx.owner,
        repo: ctx.repo,
        issue_number: ctx.state.pr.number,
        body,
      });
    } catch (error) {
      throw toEffectError("replying to the command", error);
    }
  }
  return [];
}

/** Pages of comments read when looking for an earlier reply (100 each; replies are recent but rare). */
const MAX_REPLY_PAGES = 10;

/** Whether loom's bot already posted the reply carrying `marker` on the pull request. */
async function findReply(ctx: EffectContext, marker: string): Promise<boolean> {
  let pages = 0;
  try {
    for await (const page of ctx.octokit.paginate.iterator(ctx.octokit.rest.issues.listComments, {
      owner: ctx.owner,
      repo: ctx.repo,
      issue_number: ctx.state.pr.number,
      per_page: 100,
    })) {
      countCall(ctx.calls, "reply");
      const found = page.data.some(
        (comment) =>
          (ctx.config.botLogin === undefined || comment.user?.login === ctx.config.botLogin) &&
          (comment.body ?? "").startsWith(marker),
      );
      if (found) return true;
      if (++pages >= MAX_REPLY_PAGES) return false;
    }
  } catch (error) {
    throw toEffectError("looking for an earlier reply", error);
  }
  return false;
}
