import { z } from "zod";
import { countCall, toEffectError } from "./effect-context.ts";
import type { RepoContext } from "./effect-context.ts";
import { RunIdentity, judgeRunIdentity } from "./judge-run-identity.ts";

export { hasRunKey } from "./judge-run-identity.ts";

export type DispatchedRun = { id: number; htmlUrl: string; status: string | null; conclusion: string | null };

const ListedRun = RunIdentity.extend({
  html_url: z.string(),
  status: z.string().nullable(),
  conclusion: z.string().nullable(),
});
const RunList = z.object({ workflow_runs: z.array(z.unknown()) });

/**
 * Looks for the run loom dispatched with `key`: its recent `workflow_dispatch` runs of the caller
 * workflow on the default branch, started by loom's bot after `dispatchedAt`, whose title carries
 * the key (`judgeRunIdentity`). One page (the newest 100) is enough: dispatches of a plan are
 * recent, and this only guards against doubling a dispatch or finds a run GitHub gave no id for.
 */
export async function findDispatchedRun(
  ctx: RepoContext,
  label: string,
  key: string,
  defaultBranch: string,
  dispatchedAt: number,
): Promise<DispatchedRun | null> {
  countCall(ctx.calls, label);
  let data: unknown;
  try {
    ({ data } = await ctx.octokit.rest.actions.listWorkflowRuns({
      owner: ctx.owner,
      repo: ctx.repo,
      workflow_id: ctx.config.workflowFile,
      event: "workflow_dispatch",
      branch: defaultBranch,
      per_page: 100,
    }));
  } catch (error) {
    throw toEffectError(`listing runs of ${ctx.config.workflowFile}`, error);
  }
  const expected = {
    workflowFile: ctx.config.workflowFile,
    defaultBranch,
    botLogin: ctx.config.botLogin ?? null,
    key,
    dispatchedAt,
  };
  for (const raw of RunList.parse(data).workflow_runs) {
    const run = ListedRun.safeParse(raw);
    if (!run.success || judgeRunIdentity(run.data, expected) !== null) continue;
    const { id, html_url: htmlUrl, status, conclusion } = run.data;
    return { id, htmlUrl, status, conclusion };
  }
  return null;
}
