import type { ProbotOctokit } from "probot";
import type { CallerVerdict } from "../../src/caller/caller-verdict.ts";
import { judgeCaller } from "../../src/caller/judge-caller.ts";
import type { CallerRead } from "../../src/caller/judge-caller.ts";
import { LOOM_RELEASES } from "../../src/release/loom-releases.ts";
import { readStatus, toEffectError } from "../github/effect-context.ts";
import { readConditional } from "../github/read-conditional.ts";
import type { EngineDeps } from "./engine-deps.ts";
import { decodeRepoFile } from "./read-repo-file.ts";

/**
 * The caller workflow `.github/workflows/<workflowFile>` on the default branch, judged against
 * loom's releases (`judgeCaller`). One conditional request, cached by ETag in the process: a 304
 * (the caller did not change since the last plan start) costs no rate limit. 404 is a missing
 * caller (a verdict, shown on the plan's check run); other failures throw (the delivery is retried).
 */
export async function readCallerVerdict(
  deps: Pick<EngineDeps, "calls" | "cache" | "releases">,
  octokit: ProbotOctokit,
  repo: { owner: string; repo: string; defaultBranch: string },
  workflowFile: string,
): Promise<CallerVerdict> {
  const path = `.github/workflows/${workflowFile}`;
  const where = { path, branch: repo.defaultBranch };
  let read: CallerRead;
  try {
    const { data } = await readConditional(
      { ...(deps.calls ? { calls: deps.calls } : {}), ...(deps.cache ? { cache: deps.cache } : {}) },
      "readCaller",
      `caller:${repo.owner}/${repo.repo}@${repo.defaultBranch}:${path}`,
      (headers) =>
        octokit.rest.repos.getContent({
          owner: repo.owner,
          repo: repo.repo,
          path,
          ref: repo.defaultBranch,
          headers,
        }),
    );
    const file = decodeRepoFile(path, data);
    read = file.found ? { ...where, found: true, text: file.text } : { ...where, found: false };
  } catch (error) {
    if (readStatus(error) !== 404) throw toEffectError(`reading ${path}`, error);
    read = { ...where, found: false };
  }
  return judgeCaller(read, deps.releases ?? LOOM_RELEASES);
}
