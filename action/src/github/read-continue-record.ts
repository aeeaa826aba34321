import {
  continueRecordRef,
  parseContinueRecord,
  type ContinueRecord,
} from "../../../src/artifacts/continue-record.ts";
import type { GitHubClient } from "./create-github-client.ts";
import { readRecordTag, type RecordRead } from "./read-record-tag.ts";

/** The person's instructions for this run, or why they could not be read. */
export type ContinueRecordRead = RecordRead<ContinueRecord>;

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
  const { branch, ...rest } = options;
  return readRecordTag({
    ...rest,
    ref: continueRecordRef(branch),
    parse: parseContinueRecord,
    name: "continue record",
  });
}
