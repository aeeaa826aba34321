import type { z } from "zod";

/**
 * The message of a record's tag object (`/loom continue`, `/loom amend`): a line for people
 * listing the repository's objects (`loom <kind> <stage> (<key>)`), then the record as JSON.
 */
export function renderRecordMessage(kind: string, record: { stage_id: string; key: string }): string {
  return `loom ${kind} ${record.stage_id} (${record.key})\n\n${JSON.stringify(record)}\n`;
}

/** The record `schema` describes in a tag message, or null when the message holds none (or a malformed one). */
export function parseRecordMessage<T>(schema: z.ZodType<T>, message: string): T | null {
  const start = message.indexOf("\n{");
  const json = start < 0 ? message.trim() : message.slice(start + 1).trim();
  try {
    const parsed = schema.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : null;
  } catch (error) {
    if (error instanceof SyntaxError) return null;
    throw error;
  }
}
