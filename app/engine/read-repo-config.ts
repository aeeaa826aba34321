import type { ProbotOctokit } from "probot";
import { YAMLParseError } from "yaml";
import type { LoomConfigResult } from "../../src/config/loom-config.ts";
import { mergeRepoConfig } from "../../src/config/merge-repo-config.ts";
import { readStatus, toEffectError } from "../github/effect-context.ts";

export const CONFIG_PATH = ".github/loom.yml";

const PLUGIN_PREFIX = "[@probot/octokit-plugin-config] ";

/**
 * `.github/loom.yml` from the repository's DEFAULT branch only (a pull request cannot change the
 * settings that govern it: minimum role, workflow, limits), read through Probot's config plugin
 * so org-wide defaults work: the owner's `.github` repository's file when the repository has
 * none, and `_extends` (read from the named repository's default branch). Every file is checked
 * and merged by `mergeRepoConfig`. A file that cannot be parsed, or a bad `_extends`, is a
 * problem shown on the plan check run; a GitHub failure other than 404 throws (the delivery is
 * retried later), so an unreadable config never falls back to the defaults.
 */
export async function readRepoConfig(
  octokit: ProbotOctokit,
  repo: { owner: string; repo: string },
  defaultBranch: string,
): Promise<LoomConfigResult> {
  let files;
  try {
    ({ files } = await octokit.config.get({
      owner: repo.owner,
      repo: repo.repo,
      path: CONFIG_PATH,
      branch: defaultBranch,
    }));
  } catch (error) {
    if (readStatus(error) !== null) throw toEffectError(`reading ${CONFIG_PATH}`, error);
    return { ok: false, problems: [describePluginError(error)] };
  }
  return mergeRepoConfig(files);
}

/** The plugin's own errors (invalid YAML, a bad or circular `_extends`, a directory) as a problem. */
function describePluginError(error: unknown): { message: string; line: number | null } {
  if (!(error instanceof Error)) throw new Error("reading .github/loom.yml failed", { cause: error });
  const message = error.message.startsWith(PLUGIN_PREFIX)
    ? error.message.slice(PLUGIN_PREFIX.length)
    : error.message;
  const cause = error.cause;
  if (cause instanceof YAMLParseError)
    return { message: `${message}: ${cause.message}`, line: cause.linePos?.[0].line ?? null };
  return { message, line: null };
}
