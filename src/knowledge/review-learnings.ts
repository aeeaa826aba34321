import { redactSecrets } from "../redact/redact-secrets.ts";
import { findNearDuplicate } from "./find-near-duplicate.ts";
import { gateLearning } from "./gate-learning.ts";
import { Learning, type RejectedLearning } from "./learning.ts";

/** At most this many learnings are kept from one session; the rest are rejected as too many. */
export const MAX_LEARNINGS_PER_SESSION = 10;
/** Lines of the learnings file looked at (a runaway file is cut here). */
export const MAX_LEARNING_LINES = 200;

export type ReviewedLearnings = {
  accepted: Learning[];
  rejected: RejectedLearning[];
};

export type ReviewOptions = {
  /** Learnings the repository already holds: near-duplicates of these are rejected. */
  existing: readonly Pick<Learning, "summary" | "detail">[];
  /** Values that are secrets besides token-shaped ones (the model key, the job token). */
  knownSecrets: readonly string[];
};

function describeIssues(error: {
  issues: readonly { path: readonly PropertyKey[]; message: string }[];
}): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.map(String).join(".") || "(the object)"}: ${issue.message}`)
    .join("; ");
}

function readSummary(value: unknown, knownSecrets: readonly string[]): string | undefined {
  if (value === null || typeof value !== "object" || !("summary" in value)) return undefined;
  const summary = value.summary;
  if (typeof summary !== "string" || summary.trim() === "") return undefined;
  return redactSecrets(summary.trim().replace(/\s+/g, " "), knownSecrets).slice(0, 200);
}

/**
 * The session's learnings file (one JSON object per line) through schema validation, the write
 * gate and near-duplicate rejection, in that order. Lines that do not start with `{` are prose
 * ("nothing to learn this time") and are skipped; a line that starts with `{` and is not a valid
 * learning is rejected with the reason. A learning that repeats one accepted earlier in the same
 * file is a duplicate too.
 */
export function reviewLearnings(text: string, options: ReviewOptions): ReviewedLearnings {
  const accepted: Learning[] = [];
  const rejected: RejectedLearning[] = [];
  const lines = text.split(/\r?\n/).slice(0, MAX_LEARNING_LINES);
  lines.forEach((raw, index) => {
    const line = index + 1;
    const trimmed = raw.trim();
    if (!trimmed.startsWith("{")) return;
    const reject = (reason: string, value?: unknown): void => {
      const summary = readSummary(value, options.knownSecrets);
      rejected.push({ line, ...(summary === undefined ? {} : { summary }), reason: reason.slice(0, 500) });
    };
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch {
      reject("not valid JSON (one learning object per line)");
      return;
    }
    const parsed = Learning.safeParse(value);
    if (!parsed.success) {
      reject(
        `not a valid learning: ${redactSecrets(describeIssues(parsed.error), options.knownSecrets)}`,
        value,
      );
      return;
    }
    const learning = parsed.data;
    const gated = gateLearning(learning, options.knownSecrets);
    if (gated !== null) {
      reject(`refused by the write gate: ${gated}`, value);
      return;
    }
    const duplicate = findNearDuplicate(learning, [...options.existing, ...accepted]);
    if (duplicate !== null) {
      const of = redactSecrets(duplicate.of.summary, options.knownSecrets).slice(0, 120);
      reject(`a near-duplicate (similarity ${duplicate.similarity.toFixed(2)}) of "${of}"`, value);
      return;
    }
    if (accepted.length >= MAX_LEARNINGS_PER_SESSION) {
      reject(
        `more than ${MAX_LEARNINGS_PER_SESSION} learnings in one session: keep the ones that matter most`,
        value,
      );
      return;
    }
    accepted.push(learning);
  });
  return { accepted, rejected };
}
