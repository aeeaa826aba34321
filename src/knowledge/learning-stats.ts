import type { StageOutcome } from "../artifacts/stage-result.ts";
import type { LearningUse } from "./learning-use.ts";

/** What the use records say about one learning. */
export type LearningStats = {
  /** Sessions whose prompt carried it. */
  retrieved: number;
  /** Of those, sessions whose stage passed its checks (`completed`). */
  passed: number;
  /** Of those, sessions whose stage failed its checks (`completed-with-failures`). */
  failed: number;
  /** Failed sessions since the last one that passed, newest first. */
  failedInARow: number;
  /** The plan run (`pr-<n>/<plan-id>`) and time it was last given in. */
  lastPlanRun: string;
  lastUsedAt: string;
};

/**
 * Only a stage's own verdict on its work says something about the learnings it was given: a crash,
 * a hang, a timeout or an exhausted context is the runner's or the session's size, not advice gone
 * wrong, so those count as retrieved and nothing else.
 */
export function judgeOutcome(outcome: StageOutcome): "passed" | "failed" | null {
  switch (outcome) {
    case "completed":
      return "passed";
    case "completed-with-failures":
      return "failed";
    case "needs-handoff":
    case "crashed":
    case "hung":
    case "timed-out":
    case "cancelled":
      return null;
  }
}

/** The records in time order (ties by plan run, stage and attempt: the same order on every runner). */
export function sortUses(uses: readonly LearningUse[]): LearningUse[] {
  return [...uses].sort(
    (a, b) =>
      a.recorded_at.localeCompare(b.recorded_at) ||
      a.plan_run.localeCompare(b.plan_run) ||
      a.stage_id.localeCompare(b.stage_id) ||
      a.attempt - b.attempt,
  );
}

/** Each learning's stats, by id, from every use record (any order). */
export function summarizeLearningUses(uses: readonly LearningUse[]): Map<string, LearningStats> {
  const stats = new Map<string, LearningStats>();
  for (const use of sortUses(uses)) {
    const verdict = judgeOutcome(use.outcome);
    for (const id of new Set(use.given)) {
      const s = stats.get(id) ?? {
        retrieved: 0,
        passed: 0,
        failed: 0,
        failedInARow: 0,
        lastPlanRun: use.plan_run,
        lastUsedAt: use.recorded_at,
      };
      s.retrieved += 1;
      s.lastPlanRun = use.plan_run;
      s.lastUsedAt = use.recorded_at;
      if (verdict === "passed") {
        s.passed += 1;
        s.failedInARow = 0;
      } else if (verdict === "failed") {
        s.failed += 1;
        s.failedInARow += 1;
      }
      stats.set(id, s);
    }
  }
  return stats;
}

/**
 * How the outcomes move a learning's rank: `2 × (passed − failed) / (passed + failed + 2)`, between
 * −2 and +2. A learning never judged scores 0; one or two outcomes move it a little (the `+ 2`), a
 * long record moves it up to a tag match's worth, so outcomes order learnings of like relevance and
 * never bury a learning whose scope matches the stage's files (+3) on one bad run.
 */
export function scoreOutcomes(stats: LearningStats | undefined): number {
  if (stats === undefined) return 0;
  return (2 * (stats.passed - stats.failed)) / (stats.passed + stats.failed + 2);
}
