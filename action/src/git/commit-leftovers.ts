import { RUNNER_IDENTITY, runGit, readGit } from "./run-git.ts";

export type LeftoverCommit =
  | { committed: true; sha: string; files: string[] }
  | { committed: false; reason: "clean" | "merge-in-progress" };

/** Paths git still lists as unmerged. */
async function hasUnresolvedConflicts(cwd: string): Promise<boolean> {
  return (await readGit(cwd, ["diff", "--name-only", "--diff-filter=U"])).trim() !== "";
}

/** Staged lines that add a conflict marker (`git diff --check` also reports whitespace: ignored). */
async function hasConflictMarkers(cwd: string): Promise<boolean> {
  const check = await runGit(cwd, ["diff", "--cached", "--check"]);
  return check.stdout.includes("leftover conflict marker");
}

/**
 * Commit whatever the agent left uncommitted (tracked changes, new files, deletions; `.gitignore`
 * respected) as `loom-runner`, so nothing the session wrote is lost. A merge the agent resolved but
 * did not commit is committed; one with unmerged paths or conflict markers is not: the markers
 * would be published as if resolved.
 */
export async function commitLeftovers(cwd: string, message: string): Promise<LeftoverCommit> {
  const status = await readGit(cwd, ["status", "--porcelain=v1", "-z", "--untracked-files=all"]);
  if (status === "") return { committed: false, reason: "clean" };
  const merging = (await runGit(cwd, ["rev-parse", "-q", "--verify", "MERGE_HEAD"])).code === 0;
  if (merging && (await hasUnresolvedConflicts(cwd)))
    return { committed: false, reason: "merge-in-progress" };
  await readGit(cwd, ["add", "--all", "--", "."]);
  // Left staged: `git reset` would also drop the merge state.
  if (merging && (await hasConflictMarkers(cwd))) return { committed: false, reason: "merge-in-progress" };
  const staged = (await readGit(cwd, ["diff", "--cached", "--name-only", "-z"]))
    .split("\0")
    .filter((f) => f !== "");
  if (staged.length === 0) return { committed: false, reason: "clean" };
  const identity = {
    GIT_AUTHOR_NAME: RUNNER_IDENTITY.name,
    GIT_AUTHOR_EMAIL: RUNNER_IDENTITY.email,
    GIT_COMMITTER_NAME: RUNNER_IDENTITY.name,
    GIT_COMMITTER_EMAIL: RUNNER_IDENTITY.email,
  };
  await readGit(cwd, ["commit", "--no-verify", "-q", "-m", message], { ...process.env, ...identity });
  const sha = (await readGit(cwd, ["rev-parse", "HEAD"])).trim();
  return { committed: true, sha, files: staged };
}
