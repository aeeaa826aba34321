/**
 * The `external_id` of loom's check runs: which plan file and which stage (none for the plan's own
 * check). Deterministic, so a check run can be found again, and parsed back when a button is
 * pressed (`check_run.requested_action` carries it). Stage ids never contain `@`.
 */
export function formatCheckRunExternalId(planPath: string, stageId: string | null): string {
  return `loom:${stageId ?? "*"}@${planPath}`;
}

export type CheckRunRef = { planPath: string; stageId: string | null };

/** The plan path and stage of a loom check run's `external_id`, or null for anything else. */
export function parseCheckRunExternalId(externalId: string | null | undefined): CheckRunRef | null {
  const match = /^loom:([^@]+)@(.+)$/.exec(externalId ?? "");
  if (!match?.[1] || !match[2]) return null;
  return { planPath: match[2], stageId: match[1] === "*" ? null : match[1] };
}

/** The key of a check in `PlanState.checkRuns`: the stage id, or `@plan` for the plan's own check. */
export function getCheckSlot(stageId: string | null): string {
  return stageId ?? "@plan";
}
