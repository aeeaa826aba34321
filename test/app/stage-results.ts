import type { StageResult } from "../../src/artifacts/stage-result.ts";

/** The loom-result a stage session uploads when its acceptance criteria pass. */
export function passingResult(
  stageId: string,
  attempt = 1,
  kind: StageResult["kind"] = "stage",
): StageResult {
  return {
    version: 1,
    plan_id: "PLAN-diamond",
    stage_id: stageId,
    attempt,
    kind,
    outcome: "completed",
    reason: "all acceptance checks passed",
    checks: [],
    commits: [{ sha: "c".repeat(40), subject: `work on ${stageId}` }],
    head_sha: "c".repeat(40),
    turns: 3,
    tokens: { input: 1, output: 1, cache_read: 0, cache_creation: 0 },
    cost_usd: 0.01,
    duration_ms: 1000,
    context_percent: 10,
    deviations: [],
    permission_denials: [],
  };
}
