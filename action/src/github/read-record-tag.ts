import { z } from "zod";
import type { GitHubClient } from "./create-github-client.ts";

/**
 * A record loom wrote for this run, or why it could not be read: `missing`, no record at all (404);
 * `other-run`, the record there was written for another dispatch.
 */
export type RecordRead<T> =
  { ok: true; record: T } | { ok: false; reason: string; why?: "missing" | "other-run" };

const RefAnswer = z.object({ object: z.object({ sha: z.string(), type: z.string() }) });
const TagAnswer = z.object({ message: z.string() });

export type ReadRecordTagOptions<T extends { key: string }> = {
  github: GitHubClient;
  owner: string;
  repo: string;
  /** The ref without `refs/` (`loom/continue/<branch>`, `loom/amend/<branch>`). */
  ref: string;
  /** This run's dispatch key: the record must be for it. */
  key: string;
  /** The record in a tag message, or null. */
  parse: (message: string) => T | null;
  /** What the record is called in reasons ("continue record"). */
  name: string;
};

/**
 * Reads a record the app wrote for this run: the ref, then the annotated tag object it points at
 * (2 requests with the job's read-only token). A record for another run is refused: this run
 * never acts on a record that was not written for it.
 */
export async function readRecordTag<T extends { key: string }>(
  options: ReadRecordTagOptions<T>,
): Promise<RecordRead<T>> {
  const { github, owner, repo, ref } = options;
  try {
    const pointer = RefAnswer.safeParse(
      (await github.request("GET /repos/{owner}/{repo}/git/ref/{ref}", { owner, repo, ref })).data,
    );
    if (!pointer.success || pointer.data.object.type !== "tag")
      return { ok: false, reason: `refs/${ref} does not point at a tag object` };
    const tag = TagAnswer.safeParse(
      (
        await github.request("GET /repos/{owner}/{repo}/git/tags/{tag_sha}", {
          owner,
          repo,
          tag_sha: pointer.data.object.sha,
        })
      ).data,
    );
    const record = tag.success ? options.parse(tag.data.message) : null;
    if (record === null) return { ok: false, reason: `refs/${ref} holds no valid ${options.name}` };
    if (record.key !== options.key)
      return {
        ok: false,
        reason: `refs/${ref} is the record of another run (${record.key})`,
        why: "other-run",
      };
    return { ok: true, record };
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    if (status === 404) return { ok: false, reason: `refs/${ref} does not exist`, why: "missing" };
    return {
      ok: false,
      reason: `reading refs/${ref} failed: ${typeof status === "number" ? `GitHub answered ${status}` : String(error)}`,
    };
  }
}
