import type { Heartbeat } from "../orchestrator/events.ts";
import { isWaitingForAdjudication } from "../orchestrator/is-waiting-for-adjudication.ts";
import { getStageSpend } from "../orchestrator/forecast-spend.ts";
import type { Session, StageState } from "../orchestrator/state.ts";
import type { StageStatus } from "../stage/stage-status.ts";
import { isAwaitingRetry } from "./check-run-state.ts";
import { isWaitingForMerge } from "../orchestrator/is-waiting-for-merge.ts";

/** What the renderers need besides the state. */
export type RenderOptions = {
  /** "Now" for elapsed times (ms epoch); defaults to the state's `updatedAt`. */
  now?: number;
  /** Link to an Actions run, e.g. `https://github.com/o/r/actions/runs/<id>`. */
  runUrl?: (runId: number) => string;
  /** Link to a check run's page, e.g. `https://github.com/o/r/runs/<id>`: stages link to theirs. */
  checkRunUrl?: (checkRunId: number) => string;
};

/** A short icon per status, so a table reads at a glance. */
export const STATUS_ICONS: Record<StageStatus, string> = {
  "waiting-for-deps": "⏳",
  queued: "🔵",
  executing: "🟡",
  blocked: "⛔",
  completed: "✅",
  "needs-handoff": "🔁",
  skipped: "⏭️",
  "merge-conflict": "🔀",
  "completed-with-failures": "❌",
  "merge-blocked": "🚫",
  "needs-human-review": "👀",
};

/** The icon for a stage: a scheduled automatic retry is not shown as blocked. */
export function getStatusIcon(stage: StageState): string {
  return isAwaitingRetry(stage) ? "🔁" : STATUS_ICONS[stage.status];
}

/** `1h 02m`, `4m 05s`, `12s`. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) return `${h}h ${String(m).padStart(2, "0")}m`;
  if (m > 0) return `${m}m ${String(s).padStart(2, "0")}s`;
  return `${s}s`;
}

/** The status as people read it, with the merged flag and who skipped or blocked it. */
export function describeStatus(stage: StageState): string {
  if (stage.status === "completed" && stage.merged) return "completed, merged";
  if (stage.status === "completed") return "completed, merging";
  if (stage.status === "skipped" && stage.skippedBy) return `skipped (by ${stage.skippedBy})`;
  if (isAwaitingRetry(stage)) return "retry scheduled";
  if (stage.status === "blocked" && stage.blockedBy) return `blocked (${stage.blockedBy})`;
  if (isWaitingForMerge(stage)) return "waiting for a person to merge";
  if (isWaitingForAdjudication(stage)) return "waiting for a person's decision on a disputed criterion";
  return stage.status;
}

export function getCurrentSession(stage: StageState): Session | null {
  return stage.sessions[stage.sessions.length - 1] ?? null;
}

/**
 * The current session's attempt number as its run is named (`…:<attempt>:dispatch`), with its kind
 * unless it is a plain stage session: `2`, `3 (merge)`, `4 (recovery)`; `—` before any dispatch.
 * Merge sessions take an attempt number too, so `stage.attempt` (stage and recovery sessions only)
 * would show a stale number while one runs.
 */
export function formatAttempt(stage: StageState): string {
  const session = getCurrentSession(stage);
  if (!session) return "—";
  return session.kind === "stage" ? String(session.attempt) : `${session.attempt} (${session.kind})`;
}

/**
 * The current session's time for a page that is not rewritten as time passes: how long it took
 * once it ended, `since 14:05 UTC` while it runs, `—` before the first dispatch.
 */
export function formatElapsed(stage: StageState, now: number): string {
  const session = getCurrentSession(stage);
  if (!session) return "—";
  const start = session.startedAt ?? session.dispatchedAt;
  return session.finishedAt === null
    ? `since ${formatClock(start, now)}`
    : formatDuration(session.finishedAt - start);
}

/** `14:05 UTC`, or `2026-11-20 14:05 UTC` when `at` is on another day than `now`. */
export function formatClock(at: number, now: number): string {
  const iso = new Date(at).toISOString();
  const sameDay = iso.slice(0, 10) === new Date(now).toISOString().slice(0, 10);
  return `${sameDay ? "" : `${iso.slice(0, 10)} `}${iso.slice(11, 16)} UTC`;
}

/**
 * `14:05 UTC · 45% context · Bash · running tests`, or null without a heartbeat. The time is
 * absolute: the status comment is rewritten on status changes only, so "2m ago" would go stale
 * while the page still shows it. The date is added once the heartbeat is from another day.
 */
export function formatHeartbeat(heartbeat: Heartbeat | null, now: number): string | null {
  if (!heartbeat) return null;
  const parts = [formatClock(heartbeat.timestamp, now), `${Math.round(heartbeat.contextPercent)}% context`];
  if (heartbeat.lastTool) parts.push(heartbeat.lastTool);
  if (heartbeat.activity) parts.push(heartbeat.activity);
  return parts.join(" · ");
}

/** The stage's cost so far: its sessions' reported costs (a heartbeat never counts; see `getSessionCost`). */
export function getStageCost(stage: StageState): number {
  return getStageSpend(stage);
}

/**
 * Makes untrusted text (model activity, notes, run details) safe inside a markdown table cell or
 * line: one line, no pipes, no HTML, no @-mentions, bounded.
 */
export function escapeCell(text: string, max = 200): string {
  const line = text
    .replace(/\s+/g, " ")
    .trim()
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll("|", "\\|")
    .replaceAll("@", "@&#8203;")
    .replaceAll("`", "'");
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
