import { createHash } from "node:crypto";
import type { StageResult } from "../../src/artifacts/stage-result.ts";

/** The commit a stage's session made and its checks ran on: one per stage, attempt and kind. */
export function checkedSha(stageId: string, attempt = 1, kind: StageResult["kind"] = "stage"): string {
  return createHash("sha1").update(`${stageId}/${attempt}/${kind}`).digest("hex");
}

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
    commits: [{ sha: checkedSha(stageId, attempt, kind), subject: `work on ${stageId}` }],
    head_sha: checkedSha(stageId, attempt, kind),
    turns: 3,
    tokens: { input: 1, output: 1, cache_read: 0, cache_creation: 0 },
    cost_usd: 0.01,
    duration_ms: 1000,
    context_percent: 10,
    deviations: [],
    permission_denials: [],
  };
}
