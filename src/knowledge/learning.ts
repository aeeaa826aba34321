import { z } from "zod";

/**
 * One structured learning a session records (DESIGN §6): what later sessions should know.
 * Categories follow the reference CLI's knowledge files (`architecture.md`, `entry-points.md`,
 * `patterns.md`, `conventions.md`, `mistakes.md`, `stack.md`, `concerns.md`), so a
 * knowledge-distill stage can fold each learning into the file of its kind.
 */
export const LEARNING_CATEGORIES = [
  "architecture",
  "entry-point",
  "pattern",
  "convention",
  "mistake",
  "stack",
  "concern",
] as const;
export type LearningCategory = (typeof LEARNING_CATEGORIES)[number];

/** Plural and file-name spellings of the categories, and the reference CLI's aliases. */
const CATEGORY_ALIASES: Record<string, LearningCategory> = {
  architectures: "architecture",
  arch: "architecture",
  "entry-points": "entry-point",
  "entry-points.md": "entry-point",
  entrypoint: "entry-point",
  patterns: "pattern",
  conventions: "convention",
  mistakes: "mistake",
  gotcha: "mistake",
  gotchas: "mistake",
  lesson: "mistake",
  deps: "stack",
  dependencies: "stack",
  tooling: "stack",
  concerns: "concern",
  debt: "concern",
};

export function normalizeCategory(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const key = value
    .trim()
    .toLowerCase()
    .replace(/\.md$/, "")
    .replace(/[\s_]+/g, "-");
  return CATEGORY_ALIASES[key] ?? key;
}

/**
 * Why the learning is worth keeping: the reflection criteria a session checks before it records
 * one. `verified` (the session ran something that confirmed it) ranks a learning higher.
 */
export const LEARNING_CRITERIA = ["specific", "actionable", "verified", "non-obvious"] as const;
export type LearningCriterion = (typeof LEARNING_CRITERIA)[number];

const TAG = /^[a-z0-9][a-z0-9._/+-]{0,39}$/;

const oneLine = (min: number, max: number) =>
  z
    .string()
    .trim()
    .min(min)
    .max(max)
    .refine((s) => !/[\r\n]/.test(s), "must be one line");

/**
 * `scope` says where the learning applies: `project` (the whole repository) or the paths and
 * globs it is about, separated by commas or spaces (`src/api/**, src/db/pool.ts`).
 */
export const Learning = z.object({
  category: z.preprocess(normalizeCategory, z.enum(LEARNING_CATEGORIES)),
  summary: oneLine(10, 200),
  detail: z.string().trim().min(20).max(2000),
  tags: z
    .array(
      z
        .string()
        .trim()
        .toLowerCase()
        .regex(TAG, "tags are 1–40 characters: lower-case letters, digits and . _ / + -"),
    )
    .min(1)
    .max(10)
    .transform((tags) => [...new Set(tags)]),
  scope: oneLine(1, 300),
  criteria_met: z
    .array(
      z.preprocess((v) => (typeof v === "string" ? v.trim().toLowerCase() : v), z.enum(LEARNING_CRITERIA)),
    )
    .min(1)
    .max(LEARNING_CRITERIA.length)
    .transform((criteria) => [...new Set(criteria)]),
});
export type Learning = z.infer<typeof Learning>;

/** A learning as it is kept in the repository: where it came from and when. */
export const RecordedLearning = Learning.extend({
  plan_id: z.string().min(1).max(200),
  stage_id: z.string().min(1).max(200),
  attempt: z.number().int().positive(),
  /** ISO time the session ended; orders learnings by recency. */
  recorded_at: z.iso.datetime(),
});
export type RecordedLearning = z.infer<typeof RecordedLearning>;

/**
 * A learning named where it was used: its id (the stem of its file name, `learningId`) and its
 * summary, as a person reads it on the check run.
 */
export const LearningRef = z.object({
  id: z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, "a learning id is its file name without `.md`"),
  summary: z.string().max(200),
});
export type LearningRef = z.infer<typeof LearningRef>;

/** A learning the gate turned away, for the job summary. */
export const RejectedLearning = z.object({
  /** 1-based line in the session's learnings file. */
  line: z.number().int().positive(),
  /** The summary when one could be read (redacted, bounded). */
  summary: z.string().max(200).optional(),
  reason: z.string().max(500),
});
export type RejectedLearning = z.infer<typeof RejectedLearning>;
