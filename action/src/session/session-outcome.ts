import type { Handoff, HandoffReason } from "../../../src/artifacts/handoff.ts";
import type { Heartbeat } from "../../../src/artifacts/heartbeat.ts";
import type { TokenUsage } from "../../../src/artifacts/stage-result.ts";
import type { StreamObservation } from "./observe-stream.ts";
import type { PermissionDenial } from "./stream-message.ts";

export const SESSION_OUTCOME_STATUSES = [
  "completed",
  "needs-handoff",
  "hung",
  "budget-exceeded",
  "max-turns",
  "crashed",
  "cancelled",
] as const;
export type SessionOutcomeStatus = (typeof SESSION_OUTCOME_STATUSES)[number];

/** Why runSession stopped reading: the stream ended (result or exit), or loom ended the session. */
export type StopCause =
  | { kind: "stream-ended" }
  | { kind: "silence"; silentForMs: number }
  | { kind: "context-budget"; percent: number }
  /** The action was told to stop (GitHub cancels a run by signalling the step). */
  | { kind: "cancelled"; signal: string };

type OutcomeBase = {
  sessionId: string;
  /** The model the session ran (Claude Code's init line), when it said. */
  model: string | null;
  turns: number;
  tokens: TokenUsage;
  costUsd: number;
  contextPercent: number;
  lastHeartbeat: Heartbeat | null;
  permissionDenials: PermissionDenial[];
  /** The result message's text (the model's final answer), when there was one. */
  resultText: string | null;
  /** The newest message holding a `## Code Review` report (see `StreamObservation.reviewText`). */
  reviewText: string | null;
  /** Raw stream-json lines, one per line. */
  transcriptPath: string;
  /** `[DEVIATION Rule N: …]` markers from assistant text and the result. */
  deviations: string[];
  durationMs: number;
  exit: { code: number | null; signal: string | null };
  /** The session's process group (killed when the session ends); null if it never started. */
  processGroupId?: number | null;
  /** Last part of Claude Code's stderr. */
  stderrTail: string;
  /** One line a person reads: why this outcome. */
  reason: string;
};

export type SessionOutcome =
  | (OutcomeBase & { status: "completed" })
  | (OutcomeBase & { status: Exclude<SessionOutcomeStatus, "completed">; handoff: Handoff });

export type OutcomeDecision = { status: SessionOutcomeStatus; reason: string };

const HANDOFF_REASON: Record<Exclude<SessionOutcomeStatus, "completed">, HandoffReason> = {
  "needs-handoff": "context-budget",
  hung: "hung",
  "budget-exceeded": "budget-exceeded",
  "max-turns": "max-turns",
  crashed: "crashed",
  cancelled: "cancelled",
};

export function toHandoffReason(status: Exclude<SessionOutcomeStatus, "completed">): HandoffReason {
  return HANDOFF_REASON[status];
}

function describeExit(exit: OutcomeBase["exit"]): string {
  return exit.signal !== null ? `signal ${exit.signal}` : `exit code ${String(exit.code)}`;
}

/** Decides how a session ended from evidence: why loom stopped it, the result message, the exit. Pure. */
export function decideOutcome(
  cause: StopCause,
  o: StreamObservation,
  exit: OutcomeBase["exit"],
  stderrTail: string,
): OutcomeDecision {
  switch (cause.kind) {
    case "silence":
      return {
        status: "hung",
        reason: `no output for ${Math.round(cause.silentForMs / 1000)} s: the session was stopped`,
      };
    case "context-budget":
      return {
        status: "needs-handoff",
        reason: `context reached ${cause.percent.toFixed(1)} % of the window: handing off`,
      };
    case "cancelled":
      return {
        status: "cancelled",
        reason: `the run was cancelled (${cause.signal}): the session was stopped and its handoff written`,
      };
    case "stream-ended":
      break;
  }
  const result = o.result;
  if (result === null) {
    const tail = stderrTail.trim().split("\n").slice(-3).join(" / ");
    return {
      status: "crashed",
      reason: `Claude Code ended (${describeExit(exit)}) without a result${tail === "" ? "" : `: ${tail}`}`,
    };
  }
  if (result.subtype === "error_max_budget_usd")
    return { status: "budget-exceeded", reason: "the spending cap (--max-budget-usd) was reached" };
  if (result.subtype === "error_max_turns")
    return { status: "max-turns", reason: "the turn limit (--max-turns) was reached" };
  if (result.subtype === "success" && !result.is_error) {
    const denials = result.permission_denials.length;
    return {
      status: "completed",
      reason:
        denials === 0 ? "the session finished" : `the session finished; ${denials} tool use(s) were refused`,
    };
  }
  const text = (result.result ?? "").trim().slice(0, 300);
  return {
    status: "crashed",
    reason: `the session ended with ${result.subtype}${result.is_error ? " (is_error)" : ""}${text === "" ? "" : `: ${text}`}`,
  };
}
