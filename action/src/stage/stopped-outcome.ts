import type { SessionOutcome } from "../session/session-outcome.ts";

/** A session that never ran (cancelled first) or whose runner threw. */
export function stoppedOutcome(
  status: "crashed" | "cancelled",
  stageId: string,
  attempt: number,
  at: number,
  transcriptPath: string,
  reason: string,
): SessionOutcome {
  return {
    status,
    reason,
    sessionId: "",
    model: null,
    turns: 0,
    tokens: { input: 0, output: 0, cache_read: 0, cache_creation: 0 },
    costUsd: 0,
    contextPercent: 0,
    lastHeartbeat: null,
    permissionDenials: [],
    resultText: null,
    reviewText: null,
    transcriptPath,
    deviations: [],
    durationMs: 0,
    exit: { code: null, signal: null },
    stderrTail: "",
    handoff: {
      stage_id: stageId,
      attempt,
      session_id: "",
      reason: status,
      created_at: new Date(at).toISOString(),
      context_percent: 0,
      summary: reason,
      remaining: [],
      files_touched: [],
      recent_activity: [],
      hook_notes: null,
      last_heartbeat: null,
    },
  };
}
