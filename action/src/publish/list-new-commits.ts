import { readGit } from "../git/run-git.ts";

export type NewCommit = { sha: string; parents: string[] };

/** Commits reachable from `tip` that no branch on origin has yet, oldest first. */
export async function listNewCommits(cwd: string, tip: string): Promise<NewCommit[]> {
  const out = await readGit(cwd, [
    "rev-list",
    "--reverse",
    "--topo-order",
    "--parents",
    tip,
    "--not",
    "--remotes=origin",
  ]);
  return out
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const [sha = "", ...parents] = line.split(" ");
      return { sha, parents };
    });
}

/** Paths a commit changes: against its parent, or for a merge the paths differing from every parent. */
export async function listChangedPaths(cwd: string, commit: NewCommit): Promise<string[]> {
  const args =
    commit.parents.length > 1
      ? ["diff-tree", "-r", "-c", "--no-commit-id", "--name-only", "-z", commit.sha]
      : ["diff-tree", "-r", "--root", "--no-renames", "--no-commit-id", "--name-only", "-z", commit.sha];
  const out = await readGit(cwd, args);
  return [...new Set(out.split("\0").filter((path) => path !== ""))];
}

/** A file's content at a revision, or null when the revision has no such file. */
export async function readFileAt(cwd: string, rev: string, path: string): Promise<string | null> {
  const listed = await readGit(cwd, ["ls-tree", "-z", rev, "--", path]);
  const blob = /^\d+ blob ([0-9a-f]+)\t/.exec(listed)?.[1];
  if (blob === undefined) return null;
  return readGit(cwd, ["cat-file", "blob", blob]);
}
