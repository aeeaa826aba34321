import type { Handoff, HandoffReason } from "../../../src/artifacts/handoff.ts";
import type { Heartbeat } from "../../../src/artifacts/heartbeat.ts";
import type { StreamObservation } from "./observe-stream.ts";

export type HandoffInput = {
  observation: StreamObservation;
  reason: HandoffReason;
  stageId: string;
  attempt: number;
  createdAt: string;
  contextPercent: number;
  /** The PreCompact hook's notes, when it wrote any. */
  hookNotes: string | null;
  lastHeartbeat: Heartbeat | null;
  /** Makes absolute paths under the working directory relative. */
  cwd: string;
};

const REMAINING: Record<HandoffReason, string> = {
  "context-budget":
    "Continue the assignment from where this session stopped; the acceptance criteria say what is still missing.",
  "pre-compact":
    "Continue the assignment from where this session stopped; the acceptance criteria say what is still missing.",
  hung: "The last step went silent: check whether it finished (files, commits) before repeating it.",
  crashed: "The session ended unexpectedly: check what the last step left behind before repeating it.",
  "budget-exceeded": "The spending cap was reached: finish the remaining work in small steps.",
  "max-turns": "The turn limit was reached: finish the remaining work in fewer, larger steps.",
  cancelled:
    "The run was cancelled mid-step and its commits were not published: the files listed below are " +
    "not on the branch unless an earlier attempt pushed them; check, then redo what is missing.",
};

function relativeTo(cwd: string, path: string): string {
  const base = cwd.endsWith("/") ? cwd : `${cwd}/`;
  return path.startsWith(base) ? path.slice(base.length) : path;
}

/** A handoff from what the stream showed (plus the PreCompact hook's notes). Pure. */
export function buildHandoff(input: HandoffInput): Handoff {
  const o = input.observation;
  const last = o.lastText.trim();
  const summary = [
    `${o.turns} turns, ${o.toolUses} tool uses${o.activity === null ? "" : `; last: ${o.activity}`}.`,
    ...(last === ""
      ? []
      : [`Last words of the session:\n\n${last.length > 4000 ? `${last.slice(0, 4000)}…` : last}`]),
  ].join("\n\n");
  return {
    stage_id: input.stageId,
    attempt: input.attempt,
    session_id: o.sessionId,
    reason: input.reason,
    created_at: input.createdAt,
    context_percent: input.contextPercent,
    summary,
    remaining: [REMAINING[input.reason]],
    files_touched: o.filesTouched.map((p) => relativeTo(input.cwd, p)),
    recent_activity: o.recentActivity.map((a) =>
      a.replaceAll(input.cwd.endsWith("/") ? input.cwd : `${input.cwd}/`, ""),
    ),
    hook_notes: input.hookNotes,
    last_heartbeat: input.lastHeartbeat,
  };
}
