import { globsOverlap } from "../plan/globs-overlap.ts";
import { tokenize } from "./find-near-duplicate.ts";
import type { RecordedLearning } from "./learning.ts";
import { learningId } from "./learning-file.ts";
import { scoreOutcomes, type LearningStats } from "./learning-stats.ts";

/** How many learnings a signal gets by default: a few that matter beat many that do not. */
export const DEFAULT_SELECTED_LEARNINGS = 5;

export type LearningTarget = {
  planId: string;
  stageId: string;
  name?: string;
  description?: string;
  /** The stage's `files` globs. */
  files: readonly string[];
};

/** The paths and globs in a learning's scope (`project` and other words are not paths). */
export function scopePaths(scope: string): string[] {
  return scope
    .split(/[\s,]+/)
    .map((part) => part.replace(/^`|`$/g, ""))
    .filter((part) => /[/*.]/.test(part) && !part.startsWith("http"));
}

/**
 * Relevance, deterministic and explainable: +3 when the learning's scope overlaps the stage's
 * `files`, +2 per tag the stage's id, name, description or files mention (at most +6), +1 for a
 * learning from the same plan, +0.5 for one the session verified. Ties go to the newer learning.
 */
export function scoreLearning(learning: RecordedLearning, target: LearningTarget): number {
  const words = tokenize(
    [target.stageId, target.name ?? "", target.description ?? "", ...target.files].join(" "),
  );
  let score = 0;
  const paths = scopePaths(learning.scope);
  if (paths.some((path) => target.files.some((glob) => globsOverlap(path, glob)))) score += 3;
  let tagScore = 0;
  for (const tag of learning.tags) {
    const parts = [...tokenize(tag)];
    if (parts.length > 0 && parts.every((part) => words.has(part))) tagScore += 2;
  }
  score += Math.min(6, tagScore);
  if (learning.plan_id === target.planId) score += 1;
  if (learning.criteria_met.includes("verified")) score += 0.5;
  return score;
}

/**
 * The most relevant few learnings for a stage, best first: relevance (`scoreLearning`) plus how
 * the stages it was given to went (`scoreOutcomes`, from the use records' `stats`, by id).
 */
export function selectLearnings(
  learnings: readonly RecordedLearning[],
  target: LearningTarget,
  limit = DEFAULT_SELECTED_LEARNINGS,
  stats: ReadonlyMap<string, LearningStats> = new Map(),
): RecordedLearning[] {
  return learnings
    .map((learning) => ({
      learning,
      score:
        scoreLearning(learning, target) +
        (stats.size === 0 ? 0 : scoreOutcomes(stats.get(learningId(learning)))),
    }))
    .sort(
      (a, b) =>
        b.score - a.score ||
        b.learning.recorded_at.localeCompare(a.learning.recorded_at) ||
        a.learning.summary.localeCompare(b.learning.summary),
    )
    .slice(0, Math.max(0, limit))
    .map((entry) => entry.learning);
}
