import { appendFile, mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { readGit } from "./run-git.ts";

/** A path as a gitignore pattern matching only itself (anchored; glob characters escaped). */
function literalPattern(relative: string): string {
  return `/${relative
    .split(path.sep)
    .join("/")
    .replace(/[\\*?[\]!# ]/g, (c) => `\\${c}`)}`;
}

/**
 * Keeps `file` out of every `git add` in the checkout at `workspace` (the session's and the
 * leftovers commit): a line in the repository's `info/exclude`, which is never committed. A file
 * outside the workspace needs nothing. google-github-actions/auth writes its credentials file
 * (`gha-creds-<random>.json`, which holds the job's OIDC request token) into the workspace, where
 * the leftovers commit would pick it up and the publish job refuse the stage. True when a line was added.
 */
export async function excludeFromGit(workspace: string, file: string): Promise<boolean> {
  const relative = path.relative(workspace, path.resolve(workspace, file));
  if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) return false;
  const exclude = path.resolve(
    workspace,
    (await readGit(workspace, ["rev-parse", "--git-path", "info/exclude"])).trim(),
  );
  const pattern = literalPattern(relative);
  const current = await readFile(exclude, "utf8").catch(() => "");
  if (current.split("\n").includes(pattern)) return false;
  await mkdir(path.dirname(exclude), { recursive: true });
  await appendFile(exclude, `${current === "" || current.endsWith("\n") ? "" : "\n"}${pattern}\n`);
  return true;
}
