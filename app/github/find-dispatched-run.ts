import { countCall, toEffectError } from "./effect-context.ts";
import type { RepoContext } from "./effect-context.ts";

export type DispatchedRun = { id: number; htmlUrl: string; status: string | null; conclusion: string | null };

/**
 * True when a run's title (the caller's `run-name`, which contains `${{ inputs.key }}`) carries
 * `key` as a whole word: `key` must not be followed or preceded by more key characters, so
 * `…:1` never matches `…:10`.
 */
export function hasRunKey(title: string, key: string): boolean {
  let from = 0;
  for (;;) {
    const at = title.indexOf(key, from);
    if (at < 0) return false;
    const before = title[at - 1];
    const after = title[at + key.length];
    if (
      (before === undefined || !/[\w:./-]/.test(before)) &&
      (after === undefined || !/[\w:./-]/.test(after))
    ) {
      return true;
    }
    from = at + 1;
  }
}

/**
 * Looks for a run of the caller workflow dispatched with `key`: its recent `workflow_dispatch`
 * runs on the default branch whose title carries the key. One page (the newest 100) is enough:
 * dispatches of a plan are recent, and this only guards against doubling a dispatch.
 */
export async function findDispatchedRun(
  ctx: RepoContext,
  label: string,
  key: string,
  defaultBranch: string,
): Promise<DispatchedRun | null> {
  countCall(ctx.calls, label);
  try {
    const { data } = await ctx.octokit.rest.actions.listWorkflowRuns({
      owner: ctx.owner,
      repo: ctx.repo,
      workflow_id: ctx.config.workflowFile,
      event: "workflow_dispatch",
      branch: defaultBranch,
      per_page: 100,
    });
    const run = data.workflow_runs.find(
      (r) => hasRunKey(r.display_title, key) || hasRunKey(r.name ?? "", key),
    );
    return run ? { id: run.id, htmlUrl: run.html_url, status: run.status, conclusion: run.conclusion } : null;
  } catch (error) {
    throw toEffectError(`listing runs of ${ctx.config.workflowFile}`, error);
  }
}
