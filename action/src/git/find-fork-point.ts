import { runGit } from "./run-git.ts";

/**
 * Where the checked-out stage branch left the merge point `base` (`git merge-base` with the
 * fetched `origin/<base>`): a retry's or continue's branch holds earlier attempts' commits, and
 * what they broke must not count as already there. Null when `base` was not fetched (a fork's
 * merge point lives in another repository) or has no common history.
 */
export async function findForkPoint(cwd: string, base: string): Promise<string | null> {
  const run = await runGit(cwd, ["merge-base", "HEAD", `refs/remotes/origin/${base}`]);
  const sha = run.stdout.trim();
  return run.code === 0 && /^[0-9a-f]{40,64}$/.test(sha) ? sha : null;
}

/**
 * Runs `work` with the checkout switched to `sha` (detached), then switches back to the branch (or
 * commit) it was on. Only for a clean checkout: the caller undoes what `work` changed before the
 * switch back. Null when the switch failed (nothing ran); throws when the way back fails, as the
 * session must not start on the wrong commit.
 */
export async function withCheckoutAt<T>(cwd: string, sha: string, work: () => Promise<T>): Promise<T | null> {
  const branch = (await runGit(cwd, ["symbolic-ref", "-q", "--short", "HEAD"])).stdout.trim();
  const head = (await runGit(cwd, ["rev-parse", "HEAD"])).stdout.trim();
  if ((await runGit(cwd, ["checkout", "-q", "--detach", sha])).code !== 0) return null;
  let result: T;
  try {
    result = await work();
  } finally {
    await switchBack(cwd, branch, head);
  }
  return result;
}

async function switchBack(cwd: string, branch: string, head: string): Promise<void> {
  const back = await runGit(cwd, ["checkout", "-q", ...(branch === "" ? ["--detach", head] : [branch])]);
  const now = (await runGit(cwd, ["rev-parse", "HEAD"])).stdout.trim();
  if (back.code !== 0 || now !== head)
    throw new Error(`could not switch the checkout back to ${branch || head}: ${back.stderr.trim()}`);
}
