import { z } from "zod";
import type { LearningStats } from "./learning-stats.ts";
import type { LearningUse } from "./learning-use.ts";

/** Defaults of `.github/loom.yml` `learnings:`. */
export const DEFAULT_RETIRE_AFTER_PLANS = 20;
export const DEFAULT_RETIRE_AFTER_FAILURES = 3;

/** `.github/loom.yml` `learnings:`: when the publish job retires a learning (0 never). */
export const RetirePolicy = z.strictObject({
  /** Retire a learning no stage was given in this many later plan runs. */
  retire_after_plans: z.number().int().min(0).max(10_000).default(DEFAULT_RETIRE_AFTER_PLANS),
  /** Retire a learning given to this many stages in a row that failed their checks. */
  retire_after_failures: z.number().int().min(0).max(1000).default(DEFAULT_RETIRE_AFTER_FAILURES),
});
export type RetirePolicy = z.infer<typeof RetirePolicy>;

export const DEFAULT_RETIRE_POLICY: RetirePolicy = {
  retire_after_plans: DEFAULT_RETIRE_AFTER_PLANS,
  retire_after_failures: DEFAULT_RETIRE_AFTER_FAILURES,
};

/** A learning as the retirement rule sees it. */
export type RetireCandidate = { id: string; plan_id: string; recorded_at: string };

export type Retirement = { id: string; reason: string };

/**
 * The learnings to retire, with the reason a person reads. The reasons name the policy, not the
 * counts, so two stage branches that retire the same learning write the same file and merge cleanly.
 * - failures: the last `retire_after_failures` stages it was given to all failed their checks;
 * - unused: since it was recorded or last given, `retire_after_plans` other plan runs gave their
 *   sessions learnings and never this one (the plan runs it came from or was last given in do not
 *   count).
 */
export function findRetiredLearnings(
  learnings: readonly RetireCandidate[],
  uses: readonly LearningUse[],
  stats: ReadonlyMap<string, LearningStats>,
  policy: RetirePolicy,
): Retirement[] {
  const retired: Retirement[] = [];
  for (const learning of learnings) {
    const s = stats.get(learning.id);
    const failures = policy.retire_after_failures;
    if (failures > 0 && s !== undefined && s.failedInARow >= failures) {
      retired.push({
        id: learning.id,
        reason: `the last ${failures} stages it was given to failed their checks`,
      });
      continue;
    }
    const plans = policy.retire_after_plans;
    if (plans === 0) continue;
    const since =
      s === undefined || s.lastUsedAt < learning.recorded_at ? learning.recorded_at : s.lastUsedAt;
    const own = new Set([s?.lastPlanRun]);
    const later = new Set<string>();
    for (const use of uses) {
      if (use.recorded_at <= since || own.has(use.plan_run) || use.plan_id === learning.plan_id) continue;
      later.add(use.plan_run);
    }
    if (later.size >= plans)
      retired.push({ id: learning.id, reason: `no stage was given it in ${plans} plan runs` });
  }
  return retired;
}
