import { amendRecordRef, parseAmendRecord, type AmendRecord } from "../../../src/artifacts/amend-record.ts";
import type { GitHubClient } from "./create-github-client.ts";
import { readRecordTag, type RecordRead } from "./read-record-tag.ts";

/** The amended criteria for this check run, or why they could not be read. */
export type AmendRecordRead = RecordRead<AmendRecord>;

/**
 * Reads the `/loom amend` record the app wrote for this check run (`AmendRecord`) under
 * `refs/loom/amend/<branch>`: 2 requests with the job's read-only token; a record for another run
 * is refused.
 */
export async function readAmendRecord(options: {
  github: GitHubClient;
  owner: string;
  repo: string;
  branch: string;
  key: string;
}): Promise<AmendRecordRead> {
  const { branch, ...rest } = options;
  return readRecordTag({
    ...rest,
    ref: amendRecordRef(branch),
    parse: parseAmendRecord,
    name: "amend record",
  });
}
