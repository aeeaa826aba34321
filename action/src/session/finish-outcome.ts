import type { Heartbeat } from "../../../src/artifacts/heartbeat.ts";
import { readSessionFile } from "../isolation/read-session-file.ts";
import { buildHandoff } from "./build-handoff.ts";
import type { SessionFiles } from "./claude-args.ts";
import { computeContextPercent, sumTokens, type StreamObservation } from "./observe-stream.ts";
import type { RunSessionOptions } from "./run-session-options.ts";
import { decideOutcome, toHandoffReason, type SessionOutcome, type StopCause } from "./session-outcome.ts";

/** The hooks' handoff notes are read up to this size (the handoff is cut to 100,000 characters anyway). */
const MAX_HOOK_NOTES_BYTES = 200_000;

export type FinishInput = {
  pgid: number | null;
  options: RunSessionOptions;
  files: SessionFiles;
  observation: StreamObservation;
  cause: StopCause;
  exit: { code: number | null; signal: string | null };
  stderrTail: string;
  lastHeartbeat: Heartbeat | null;
  started: number;
  now: () => Date;
};

/** The outcome of a session from everything runSession saw; builds the handoff when it did not complete. */
export function finishOutcome(input: FinishInput): SessionOutcome {
  const { options, observation: o, now } = input;
  const decision = decideOutcome(input.cause, o, input.exit, input.stderrTail);
  const contextPercent = computeContextPercent(o, options.contextWindow);
  const base = {
    sessionId: o.sessionId,
    model: o.model,
    turns: o.result?.num_turns ?? o.turns,
    tokens: sumTokens(o),
    costUsd: o.result?.total_cost_usd ?? 0,
    contextPercent,
    lastHeartbeat: input.lastHeartbeat,
    permissionDenials: o.result?.permission_denials ?? [],
    resultText: o.result?.result ?? null,
    reviewText: o.reviewText,
    transcriptPath: options.transcriptPath,
    deviations: o.deviations,
    durationMs: now().getTime() - input.started,
    exit: input.exit,
    processGroupId: input.pgid,
    stderrTail: input.stderrTail,
    reason: decision.reason,
  };
  if (decision.status === "completed") return { ...base, status: "completed" };
  const notesPath = input.files.handoffNotesFile;
  const handoff = buildHandoff({
    observation: o,
    reason: toHandoffReason(decision.status),
    stageId: options.stageId,
    attempt: options.attempt,
    createdAt: now().toISOString(),
    contextPercent,
    hookNotes: readSessionFile(notesPath, MAX_HOOK_NOTES_BYTES),
    lastHeartbeat: input.lastHeartbeat,
    cwd: options.cwd,
  });
  return { ...base, status: decision.status, handoff };
}
