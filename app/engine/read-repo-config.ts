import type { ProbotOctokit } from "probot";
import { parseLoomConfig } from "../../src/config/loom-config.ts";
import type { LoomConfigResult } from "../../src/config/loom-config.ts";
import { readRepoFile } from "./read-repo-file.ts";

export const CONFIG_PATH = ".github/loom.yml";

/**
 * `.github/loom.yml` from the repository's DEFAULT branch only: a pull request cannot change the
 * settings that govern it (minimum role, workflow, limits).
 */
export async function readRepoConfig(
  octokit: ProbotOctokit,
  repo: { owner: string; repo: string },
  defaultBranch: string,
): Promise<LoomConfigResult> {
  const file = await readRepoFile(octokit, repo, CONFIG_PATH, defaultBranch);
  if (!file.found) return parseLoomConfig(null);
  if (file.text === null) return { ok: false, problems: [{ message: file.reason, line: null }] };
  return parseLoomConfig(file.text);
}
