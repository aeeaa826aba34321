import type { CommitInfo } from "../../../src/artifacts/stage-result.ts";
import { readGit } from "./run-git.ts";

/** The commit HEAD points at. */
export async function readHead(cwd: string): Promise<string> {
  return (await readGit(cwd, ["rev-parse", "HEAD"])).trim();
}

/** Commits reachable from HEAD and not from `startSha`, oldest first. */
export async function listCommitsSince(cwd: string, startSha: string): Promise<CommitInfo[]> {
  const out = await readGit(cwd, ["log", "--reverse", "--format=%H%x00%s%x1e", `${startSha}..HEAD`]);
  return out
    .split("\x1e")
    .map((record) => record.trim())
    .filter((record) => record !== "")
    .map((record) => {
      const [sha = "", subject = ""] = record.split("\0");
      return { sha, subject: subject.slice(0, 1024) };
    });
}
