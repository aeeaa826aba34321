import { readGit, runGit } from "./run-git.ts";

/** Whether the checkout has no changes git would commit (untracked files included, ignored not). */
export async function isWorktreeClean(cwd: string): Promise<boolean> {
  return (await readGit(cwd, ["status", "--porcelain=v1", "--untracked-files=all"])) === "";
}

/**
 * Undoes what a command run before the session changed in a checkout that was clean before it
 * (tracked files restored, new untracked files removed; ignored files such as build output kept),
 * so the runner's leftovers commit after the session holds only the session's work. Returns the
 * paths it undid.
 */
export async function undoWorktreeChanges(cwd: string): Promise<string[]> {
  const status = await readGit(cwd, ["status", "--porcelain=v1", "-z", "--untracked-files=all"]);
  if (status === "") return [];
  const paths = status
    .split("\0")
    .filter((entry) => entry.length > 3)
    .map((entry) => entry.slice(3));
  await runGit(cwd, ["reset", "-q", "--hard"]);
  await runGit(cwd, ["clean", "-f", "-d", "-q", "--", "."]);
  return paths;
}
