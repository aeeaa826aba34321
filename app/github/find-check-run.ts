import { toEffectError } from "./effect-context.ts";
import type { RepoContext } from "./effect-context.ts";
import { readConditional } from "./read-conditional.ts";

export type FoundCheckRun = { id: number; status: string; conclusion: string | null; title: string | null };

export function getCheckRunCacheKey(ctx: RepoContext, headSha: string, externalId: string): string {
  return `check:${ctx.owner}/${ctx.repo}@${headSha}#${externalId}`;
}

/**
 * The newest check run named `name` with loom's `externalId` on `headSha`, or null. Conditional
 * (ETag) so that repeated look-ups of an unchanged commit are free.
 */
export async function findCheckRun(
  ctx: RepoContext,
  label: string,
  headSha: string,
  name: string,
  externalId: string,
): Promise<FoundCheckRun | null> {
  try {
    const { data } = await readConditional(
      ctx,
      label,
      `list:${getCheckRunCacheKey(ctx, headSha, name)}`,
      (headers) =>
        ctx.octokit.rest.checks.listForRef({
          owner: ctx.owner,
          repo: ctx.repo,
          ref: headSha,
          check_name: name,
          filter: "all",
          per_page: 100,
          headers,
        }),
    );
    const mine = data.check_runs.filter((r) => r.external_id === externalId).sort((a, b) => b.id - a.id)[0];
    return mine
      ? { id: mine.id, status: mine.status, conclusion: mine.conclusion, title: mine.output.title }
      : null;
  } catch (error) {
    throw toEffectError(`looking up check run ${name}`, error);
  }
}
