import { countCall, toEffectError } from "./effect-context.ts";
import type { RepoContext } from "./effect-context.ts";

/** The repository's default branch: from the config when known, else one `GET /repos/{o}/{r}`. */
export async function readDefaultBranch(ctx: RepoContext, label: string): Promise<string> {
  if (ctx.config.defaultBranch) return ctx.config.defaultBranch;
  countCall(ctx.calls, label);
  try {
    const { data } = await ctx.octokit.rest.repos.get({ owner: ctx.owner, repo: ctx.repo });
    ctx.config.defaultBranch = data.default_branch;
    return data.default_branch;
  } catch (error) {
    throw toEffectError("reading the default branch", error);
  }
}
