import { runGit, readGit } from "./run-git.ts";

export type BundleResult =
  { created: true; file: string; ref: string; head: string } | { created: false; reason: "no-commits" };

/**
 * Write a git bundle holding the stage branch's new commits (`startSha..HEAD`) under
 * `refs/heads/<branch>`, so the publish job can fetch exactly that ref and nothing else.
 */
export async function createBundle(
  cwd: string,
  options: { branch: string; startSha: string; file: string },
): Promise<BundleResult> {
  const head = (await readGit(cwd, ["rev-parse", "HEAD"])).trim();
  // Also when the agent moved HEAD back (reset): git refuses an empty bundle.
  const count = (await readGit(cwd, ["rev-list", "--count", `${options.startSha}..${head}`])).trim();
  if (count === "0") return { created: false, reason: "no-commits" };
  const ref = `refs/heads/${options.branch}`;
  const current = await runGit(cwd, ["symbolic-ref", "-q", "HEAD"]);
  if (current.stdout.trim() !== ref) await readGit(cwd, ["update-ref", ref, head]);
  await readGit(cwd, ["bundle", "create", options.file, ref, `^${options.startSha}`]);
  return { created: true, file: options.file, ref, head };
}
