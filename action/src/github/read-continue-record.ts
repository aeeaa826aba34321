import { z } from "zod";
import {
  continueRecordRef,
  parseContinueRecord,
  type ContinueRecord,
} from "../../../src/artifacts/continue-record.ts";
import type { GitHubClient } from "./create-github-client.ts";

/** The person's instructions for this run, or why they could not be read. */
export type ContinueRecordRead = { ok: true; record: ContinueRecord } | { ok: false; reason: string };

const RefAnswer = z.object({ object: z.object({ sha: z.string(), type: z.string() }) });
const TagAnswer = z.object({ message: z.string() });

export type ReadContinueRecordOptions = {
  github: GitHubClient;
  owner: string;
  repo: string;
  /** The stage branch (the record lives under `refs/loom/continue/<branch>`). */
  branch: string;
  /** This run's dispatch key: the record must be for it. */
  key: string;
};

/**
 * Reads the `/loom continue` record the app wrote for this run (`ContinueRecord`): the ref, then
 * the tag object it points at (2 requests with the job's read-only token). A record for another
 * run (an older continue of the stage) is refused: this run never acts on instructions that were
 * not given for it.
 */
export async function readContinueRecord(options: ReadContinueRecordOptions): Promise<ContinueRecordRead> {
  const { github, owner, repo } = options;
  const ref = continueRecordRef(options.branch);
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
    const record = tag.success ? parseContinueRecord(tag.data.message) : null;
    if (record === null) return { ok: false, reason: `refs/${ref} holds no valid continue record` };
    if (record.key !== options.key)
      return { ok: false, reason: `refs/${ref} is the record of another run (${record.key})` };
    return { ok: true, record };
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    return {
      ok: false,
      reason:
        status === 404
          ? `refs/${ref} does not exist`
          : `reading refs/${ref} failed: ${typeof status === "number" ? `GitHub answered ${status}` : String(error)}`,
    };
  }
}
