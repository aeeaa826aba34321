import { existsSync } from "node:fs";
import path from "node:path";
import { runGit } from "./run-git.ts";

export type MergeStart =
  | { state: "conflicts"; files: string[] }
  | { state: "merged"; sha: string }
  | { state: "up-to-date" }
  | { state: "failed"; detail: string };

/**
 * Start merging the merge point (`origin/<base>`) into the checked-out stage branch as the runner,
 * so a merge session finds the conflicts in place. A shallow checkout is deepened first: a merge
 * needs the common ancestor.
 */
export async function startMerge(cwd: string, base: string): Promise<MergeStart> {
  const shallow = existsSync(path.join(cwd, ".git", "shallow"));
  const refspec = `+refs/heads/${base}:refs/remotes/origin/${base}`;
  const fetch = await runGit(cwd, [
    "fetch",
    "--no-tags",
    ...(shallow ? ["--unshallow"] : []),
    "origin",
    refspec,
  ]);
  if (fetch.code !== 0)
    return { state: "failed", detail: `git fetch origin ${base}: ${fetch.stderr.trim().slice(0, 500)}` };
  const merge = await runGit(cwd, [
    "merge",
    "--no-edit",
    "--no-verify",
    "-m",
    `Merge ${base} into the stage branch`,
    `origin/${base}`,
  ]);
  if (merge.code === 0) {
    if (/Already up to date/i.test(merge.stdout)) return { state: "up-to-date" };
    const head = await runGit(cwd, ["rev-parse", "HEAD"]);
    return { state: "merged", sha: head.stdout.trim() };
  }
  const conflicts = await runGit(cwd, ["diff", "--name-only", "--diff-filter=U", "-z"]);
  const files = conflicts.stdout.split("\0").filter((f) => f !== "");
  if (files.length > 0) return { state: "conflicts", files };
  await runGit(cwd, ["merge", "--abort"]);
  return { state: "failed", detail: `git merge origin/${base}: ${merge.stderr.trim().slice(0, 500)}` };
}
