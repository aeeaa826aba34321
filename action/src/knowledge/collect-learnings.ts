import type { RecordedLearning, RejectedLearning } from "../../../src/knowledge/learning.ts";
import { reviewLearnings } from "../../../src/knowledge/review-learnings.ts";
import { readFileHead } from "./read-file-head.ts";

/** The learnings file is read up to this many bytes; a longer one is cut (its cut line is then rejected). */
export const MAX_LEARNINGS_FILE_CHARS = 256 * 1024;

export type CollectedLearnings = { accepted: RecordedLearning[]; rejected: RejectedLearning[] };

export type CollectOptions = {
  file: string;
  existing: readonly RecordedLearning[];
  knownSecrets: readonly string[];
  origin: { plan_id: string; stage_id: string; attempt: number; recorded_at: string };
};

/**
 * Reads what the session wrote to its learnings file and reviews it (schema, write gate,
 * near-duplicates against the repository's learnings). Null when the session left no file.
 */
export async function collectLearnings(options: CollectOptions): Promise<CollectedLearnings | null> {
  const text = await readFileHead(options.file, MAX_LEARNINGS_FILE_CHARS).catch(
    (error: NodeJS.ErrnoException) => error,
  );
  if (text instanceof Error) {
    if (text.code === "ENOENT") return null;
    // The session made the path unreadable (a folder, a dangling link): say so, keep nothing.
    return {
      accepted: [],
      rejected: [{ line: 1, reason: `the learnings file could not be read (${text.code ?? "error"})` }],
    };
  }
  const reviewed = reviewLearnings(text, {
    existing: options.existing,
    knownSecrets: options.knownSecrets,
  });
  return {
    accepted: reviewed.accepted.map((learning) => ({ ...learning, ...options.origin })),
    rejected: reviewed.rejected,
  };
}
