import { z } from "zod";
import { MAX_ACCEPTANCE_COMMAND_LENGTH } from "../plan/check-stage-fields.ts";
import { parseRecordMessage, renderRecordMessage } from "./record-message.ts";

/** The longest amended criterion (the plan's own limit on an acceptance command). */
export const MAX_AMENDED_COMMAND = MAX_ACCEPTANCE_COMMAND_LENGTH;

/** One person's `/loom amend`: criterion `criterion_index` (0-based) is `command` for this run. */
export const Amendment = z.object({
  criterion_index: z.number().int().min(0).max(999),
  command: z.string().min(1).max(MAX_AMENDED_COMMAND),
  by: z.string().min(1).max(100),
});
export type Amendment = z.infer<typeof Amendment>;

/**
 * A stage's amended acceptance criteria as the app records them for a run of the stage: an
 * annotated tag object whose message is this JSON, under `amendRecordRef(branch)` (outside branches
 * and tags: no workflow or push webhook fires). The run job reads it with its read-only token and
 * checks that `key` is its own dispatch key. A `check` run also checks that the stage branch is
 * still at `checked_sha` and runs the stage's checks with the amendments in place; a later session
 * (retry, recovery, re-run, continue) is told the amended criteria and checked against them. Only
 * writers (and the app) can create refs. The plan file is never changed: the amendments hold for
 * this pull request's run of the plan.
 */
export const AmendRecord = z.object({
  version: z.literal(1),
  key: z.string().min(1).max(500),
  stage_id: z.string().min(1).max(128),
  /** The commit the disputed checks ran on: a `check` run checks exactly this commit. */
  checked_sha: z.string().regex(/^[0-9a-f]{40,64}$/),
  amendments: z.array(Amendment).min(1).max(100),
});
export type AmendRecord = z.infer<typeof AmendRecord>;

/** `loom/amend/<stage branch>`: the record's ref without `refs/` (one per stage, overwritten). */
export function amendRecordRef(branch: string): string {
  return `loom/amend/${branch}`;
}

/** The tag message: a line for people listing the repository's objects, then the record as JSON. */
export function renderAmendRecord(record: AmendRecord): string {
  return renderRecordMessage("amend", record);
}

/** The record in a tag message, or null when the message holds none (or a malformed one). */
export function parseAmendRecord(message: string): AmendRecord | null {
  return parseRecordMessage(AmendRecord, message);
}
