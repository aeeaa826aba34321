import type { LoomConfig } from "./loom-config.ts";
import { resolveSessionCaps } from "./resolve-session-caps.ts";
import type { CapsInForce } from "./caps-in-force.ts";
import type { CapValues } from "./resolve-session-caps.ts";

export type PlanCaps = {
  /** What a stage that sets no cap of its own runs with. */
  plan: CapsInForce;
  /** Only the stages whose caps differ from the plan's. */
  stages: Record<string, CapsInForce>;
};

/**
 * The caps of a plan's sessions as the App sees them: the action's inputs (set in the caller
 * workflow) are out of its sight, so where they would apply it sees loom's default. A plan's
 * `LoomMetadata` and `Stage`s fit as they are.
 */
export function resolvePlanCaps(
  plan: { metadata: CapValues; stages: readonly (CapValues & { id: string })[] },
  repoConfig: Pick<LoomConfig, "session"> | null,
): PlanCaps {
  const resolve = (stage: CapValues): CapsInForce => {
    const { notes: _notes, ...caps } = resolveSessionCaps({
      stage,
      plan: plan.metadata,
      repoConfig,
      inputs: {},
    });
    return caps;
  };
  const planCaps = resolve({});
  const stages: Record<string, CapsInForce> = {};
  for (const stage of plan.stages) {
    const caps = resolve(stage);
    if (!isSameCaps(caps, planCaps)) stages[stage.id] = caps;
  }
  return { plan: planCaps, stages };
}

function isSameCaps(a: CapsInForce, b: CapsInForce): boolean {
  return (
    a.maxBudgetUsd === b.maxBudgetUsd &&
    a.maxTurns === b.maxTurns &&
    a.from.maxBudgetUsd === b.from.maxBudgetUsd &&
    a.from.maxTurns === b.from.maxTurns
  );
}
