import { runGit } from "./run-git.ts";

/**
 * Whether the checkout's history holds loom's merge of `branch` (the App's merge message names
 * the stage branch and the checked commit: `Stage branch <branch> at <sha> (checked)`). Read
 * before the session starts, so nothing the session commits can make it true: a stage run again
 * after its work was merged (a retry of a completed stage, a re-run of an affected one) starts on
 * a head that holds it. One `git log`; false when git cannot tell.
 */
export async function wasMergedBefore(cwd: string, branch: string): Promise<boolean> {
  const run = await runGit(cwd, [
    "log",
    "-n",
    "1",
    "--format=%H",
    "--fixed-strings",
    `--grep=Stage branch ${branch} at `,
    "HEAD",
  ]);
  return run.code === 0 && run.stdout.trim() !== "";
}
