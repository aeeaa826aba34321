import type { RanBefore } from "../../../src/signal/signal-input.ts";
import { runGit } from "./run-git.ts";

/** Commits and paths listed at most; the rest are counted. */
const MAX_LISTED = 30;

/**
 * Whether the checkout's history holds loom's merge of `branch` (the App's merge message names
 * the stage branch and the checked commit: `Stage branch <branch> at <sha> (checked)`), and if so
 * what landed after the newest such merge: the commits on the branch's first-parent line
 * (`<sha7> <author>: <subject>`, newest first; another stage's merge is one of them) and the paths
 * they changed. A completed stage run again (a retry, an affected re-run)
 * starts on a head that holds its merge; the session is told why it runs again from this. Read
 * before the session starts, so nothing it commits counts. Three `git` calls, no request; null
 * when there is no such merge or git cannot tell.
 */
export async function readRanBefore(cwd: string, branch: string): Promise<RanBefore | null> {
  const found = await runGit(cwd, [
    "log",
    "-n",
    "1",
    "--format=%H",
    "--fixed-strings",
    `--grep=Stage branch ${branch} at `,
    "HEAD",
  ]);
  const merge = found.stdout.trim();
  if (found.code !== 0 || merge === "") return null;
  // The branch's own line: another stage's merge is one commit, not its session's commits too.
  const log = await runGit(cwd, ["log", "-z", "--first-parent", "--format=%h %an: %s", `${merge}..HEAD`]);
  const diff = await runGit(cwd, ["diff", "-z", "--name-only", "--no-renames", merge, "HEAD"]);
  const commits = log.code === 0 ? log.stdout.split("\0").filter((line) => line !== "") : [];
  const paths = diff.code === 0 ? diff.stdout.split("\0").filter((line) => line !== "") : [];
  return {
    merge,
    commits: commits.slice(0, MAX_LISTED),
    moreCommits: Math.max(0, commits.length - MAX_LISTED),
    paths: paths.slice(0, MAX_LISTED),
    morePaths: Math.max(0, paths.length - MAX_LISTED),
  };
}
