import { z } from "zod";
import { parseRecordMessage, renderRecordMessage } from "./record-message.ts";
import { MAX_CONTINUE_INSTRUCTIONS } from "../commands/parse-command.ts";

/**
 * A person's `/loom continue` as the app records it for the run job: an annotated tag object whose
 * message is this JSON, under the ref `continueRecordRef(branch)` (outside branches and tags, so no
 * workflow or push webhook fires). The run job reads it with its read-only token (`contents:
 * read`), checks that `key` is its own dispatch key, and quotes the instructions as the person's.
 * Only writers (and the app) can create refs: nobody without write access can plant one, and the
 * session never holds a token that could.
 */
export const ContinueRecord = z.object({
  version: z.literal(1),
  /** The dispatch key of the run the instructions are for. */
  key: z.string().min(1).max(500),
  stage_id: z.string().min(1).max(128),
  /** The login of the person who continued the stage (write access checked by the app). */
  by: z.string().min(1).max(100),
  /** The attempt whose session is continued. */
  from_attempt: z.number().int().positive(),
  instructions: z.string().min(1).max(MAX_CONTINUE_INSTRUCTIONS),
});
export type ContinueRecord = z.infer<typeof ContinueRecord>;

/** `loom/continue/<stage branch>`: the record's ref without `refs/` (one per stage, overwritten). */
export function continueRecordRef(branch: string): string {
  return `loom/continue/${branch}`;
}

/** The tag message: a line for people listing the repository's objects, then the record as JSON. */
export function renderContinueRecord(record: ContinueRecord): string {
  return renderRecordMessage("continue", record);
}

/** The record in a tag message, or null when the message holds none (or a malformed one). */
export function parseContinueRecord(message: string): ContinueRecord | null {
  return parseRecordMessage(ContinueRecord, message);
}
