import type { PlanKey } from "../../app/store/store.ts";

/** Plan `n` of pull request Octo/Hello#12, unless overridden. */
export function planKey(n: number, overrides: Partial<PlanKey> = {}): PlanKey {
  return {
    installationId: 7,
    owner: "Octo",
    repo: "Hello",
    pr: 12,
    planPath: `doc/plans/PLAN-${n}.md`,
    ...overrides,
  };
}
