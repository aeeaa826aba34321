import type { SessionReport } from "../../src/orchestrator/session-report.ts";

/** A one-turn session report that cost `usd`, nothing else in it. */
export const costReport = (usd: number): SessionReport => ({
  usage: {
    turns: 1,
    inputTokens: 1,
    outputTokens: 1,
    cacheReadTokens: 0,
    cacheCreationTokens: 0,
    costUsd: usd,
    durationMs: 1,
  },
  checks: [],
  deviations: [],
  learningsAdded: 0,
});
