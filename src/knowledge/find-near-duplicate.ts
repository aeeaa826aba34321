import type { Learning } from "./learning.ts";

/**
 * Near-duplicate detection, pure and deterministic: both learnings are reduced to sets of
 * normalised words (lower case, letters and digits, stop words and 1-letter words dropped) and
 * compared by Jaccard similarity |A ∩ B| / |A ∪ B|.
 * - summaries alike at `SUMMARY_DUPLICATE_SIMILARITY` (0.8) or more: the same headline;
 * - summary + detail alike at `TEXT_DUPLICATE_SIMILARITY` (0.6) or more: the same lesson reworded.
 * The thresholds were picked so that a reworded sentence with the same nouns counts as a duplicate
 * while two lessons about the same file with different advice (different verbs and objects) do not.
 */
export const SUMMARY_DUPLICATE_SIMILARITY = 0.8;
export const TEXT_DUPLICATE_SIMILARITY = 0.6;

const STOP_WORDS = new Set(
  (
    "a an and are as at be but by can do does for from has have how if in into is it its not of on " +
    "or so than that the their then there these this those to too use used uses using was we were " +
    "when where which while who will with you your"
  ).split(" "),
);

/** The normalised words of a text. */
export function tokenize(text: string): Set<string> {
  const words = text
    .toLowerCase()
    .normalize("NFKD")
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 1 && !STOP_WORDS.has(word));
  return new Set(words);
}

export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  for (const word of a) if (b.has(word)) shared += 1;
  return shared / (a.size + b.size - shared);
}

export type Duplicate = { of: Pick<Learning, "summary">; similarity: number };

type Comparable = Pick<Learning, "summary" | "detail">;

/** The existing learning this one nearly repeats (the most similar), or null. */
export function findNearDuplicate(learning: Comparable, existing: readonly Comparable[]): Duplicate | null {
  const summary = tokenize(learning.summary);
  const text = tokenize(`${learning.summary} ${learning.detail}`);
  let best: Duplicate | null = null;
  for (const other of existing) {
    const bySummary = jaccard(summary, tokenize(other.summary));
    const byText = jaccard(text, tokenize(`${other.summary} ${other.detail}`));
    const duplicate = bySummary >= SUMMARY_DUPLICATE_SIMILARITY || byText >= TEXT_DUPLICATE_SIMILARITY;
    const similarity = Math.max(bySummary, byText);
    if (duplicate && (best === null || similarity > best.similarity)) best = { of: other, similarity };
  }
  return best;
}
