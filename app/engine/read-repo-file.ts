import { z } from "zod";
import type { ProbotOctokit } from "probot";
import { readStatus, toEffectError } from "../github/effect-context.ts";

const FileContent = z.object({
  type: z.literal("file"),
  sha: z.string(),
  size: z.number(),
  encoding: z.string().optional(),
  content: z.string().optional(),
});

export type RepoFile =
  | { found: true; text: string; blobSha: string }
  | { found: false }
  | { found: true; text: null; blobSha: string; reason: string };

/** Largest file loom reads through the contents API (plans are limited to 1 MiB). */
const MAX_BYTES = 1024 * 1024;

/**
 * One file at one ref (`GET /repos/{o}/{r}/contents/{path}?ref=`), decoded, with its blob SHA.
 * 404 is "not found"; other failures throw (the delivery is retried later).
 */
export async function readRepoFile(
  octokit: ProbotOctokit,
  repo: { owner: string; repo: string },
  path: string,
  ref: string,
): Promise<RepoFile> {
  let data: unknown;
  try {
    ({ data } = await octokit.rest.repos.getContent({ owner: repo.owner, repo: repo.repo, path, ref }));
  } catch (error) {
    if (readStatus(error) === 404) return { found: false };
    throw toEffectError(`reading ${path} at ${ref}`, error);
  }
  return decodeRepoFile(path, data);
}

/** A contents API answer for `path` as a file: its text (decoded), or why there is none. */
export function decodeRepoFile(path: string, data: unknown): RepoFile {
  const file = FileContent.safeParse(data);
  if (!file.success) return { found: false };
  if (file.data.size > MAX_BYTES || file.data.content === undefined || file.data.encoding !== "base64") {
    return { found: true, text: null, blobSha: file.data.sha, reason: `${path} is larger than 1 MiB` };
  }
  const text = Buffer.from(file.data.content, "base64").toString("utf8");
  return { found: true, text, blobSha: file.data.sha };
}
