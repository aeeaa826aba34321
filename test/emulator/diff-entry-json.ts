import type { ChangedFile } from "./create-git-repo.ts";
import type { RouteRequest } from "./route-reply.ts";

/**
 * GitHub's `diff-entry` of one changed file at commit `head`, as the pull request files, compare
 * and commit answers give it. `sha` is the file's blob at `head` (zeros for a removed file).
 */
export async function diffEntryJson(request: RouteRequest, head: string, f: ChangedFile) {
  const { repo, core } = request;
  return {
    sha: (f.status === "removed" ? null : await repo.git.blobSha(head, f.filename)) ?? "0".repeat(40),
    filename: f.filename,
    status: f.status,
    additions: f.additions,
    deletions: f.deletions,
    changes: f.additions + f.deletions,
    blob_url: `https://github.emulator.invalid/${repo.fullName}/blob/${head}/${f.filename}`,
    raw_url: `https://github.emulator.invalid/${repo.fullName}/raw/${head}/${f.filename}`,
    contents_url: `${core.json.url}/repos/${repo.fullName}/contents/${f.filename}?ref=${head}`,
    ...(f.previousFilename ? { previous_filename: f.previousFilename } : {}),
  };
}

/**
 * A commit's changed files as GitHub answers them with the commit (get a commit, a merge's 201):
 * against its first parent, at most 300 (GitHub pages the rest), with the totals in `stats`.
 */
export async function commitFilesJson(request: RouteRequest, parent: string, sha: string) {
  const changed = await request.repo.git.diffFiles(parent, sha);
  const additions = changed.reduce((sum, f) => sum + f.additions, 0);
  const deletions = changed.reduce((sum, f) => sum + f.deletions, 0);
  return {
    stats: { total: additions + deletions, additions, deletions },
    files: await Promise.all(changed.slice(0, 300).map((f) => diffEntryJson(request, sha, f))),
  };
}
