import { z } from "zod";
import { Role } from "../../src/config/loom-config.ts";
import type { PlanState } from "../../src/orchestrator/state.ts";

/**
 * What one plan row holds: the orchestrator's state plus the repository settings the app needs to
 * carry out effects without re-reading `.github/loom.yml` (refreshed on every pull request event).
 */
export const RepoSettings = z.object({
  workflowFile: z.string(),
  labelPrefix: z.string(),
  minimumRole: Role,
  branchCleanup: z.boolean(),
  defaultBranch: z.string(),
});
export type RepoSettings = z.infer<typeof RepoSettings>;

const PlanStateShape = z
  .object({
    plan: z.object({ id: z.string(), blobSha: z.string(), stages: z.array(z.unknown()) }).loose(),
    pr: z.object({ number: z.number(), headSha: z.string(), headRef: z.string() }).loose(),
    stages: z.record(z.string(), z.unknown()),
    order: z.array(z.string()),
    closed: z.boolean(),
  })
  .loose();

export const StoredPlan = z.object({
  format: z.literal(1),
  // The state is written only by `commitPlan` from the reducer's output; its shape is checked
  // here, its full typing is the reducer's contract.
  state: PlanStateShape.transform((value) => value as unknown as PlanState),
  repo: RepoSettings,
});
export type StoredPlan = { format: 1; state: PlanState; repo: RepoSettings };

/** Error for a row that is not what loom writes: a bug or a foreign writer, never user input. */
export class CorruptPlanRowError extends Error {
  override readonly name = "CorruptPlanRowError";
}

export function readStoredPlan(planKey: string, raw: unknown): StoredPlan {
  const parsed = StoredPlan.safeParse(raw);
  if (!parsed.success) {
    throw new CorruptPlanRowError(`plan row ${planKey} is not a loom plan`, { cause: parsed.error });
  }
  return parsed.data;
}
