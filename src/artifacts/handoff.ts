import { z } from "zod";
import { Heartbeat } from "./heartbeat.ts";

export const HANDOFF_REASONS = [
  "context-budget",
  "pre-compact",
  "hung",
  "crashed",
  "budget-exceeded",
  "max-turns",
  "cancelled",
] as const;
export type HandoffReason = (typeof HANDOFF_REASONS)[number];

/**
 * What a stage session leaves for the next attempt (a `recovery` session) when it cannot finish:
 * written by the action from what it observed in the stream, merged with the PreCompact hook's notes.
 */
export const Handoff = z.object({
  stage_id: z.string(),
  attempt: z.number().int().positive(),
  session_id: z.string(),
  reason: z.enum(HANDOFF_REASONS),
  /** ISO 8601, UTC. */
  created_at: z.iso.datetime({ offset: true }),
  context_percent: z.number().min(0).max(100),
  /** What was done (the session's last words, tool uses in order). */
  summary: z.string(),
  /** What remains, as far as known. */
  remaining: z.array(z.string()),
  /** Files the session wrote or edited (relative to the working directory when possible). */
  files_touched: z.array(z.string()),
  /** Last few tool uses, oldest first (`Write src/a.ts`, `Bash npm test`). */
  recent_activity: z.array(z.string()),
  /** Notes written by the PreCompact hook, when it ran. */
  hook_notes: z.string().nullable(),
  last_heartbeat: Heartbeat.nullable(),
});
export type Handoff = z.infer<typeof Handoff>;

const REASON_TEXT: Record<HandoffReason, string> = {
  "context-budget": "the session crossed its context budget",
  "pre-compact": "Claude Code was about to compact the conversation",
  hung: "the session went silent and was stopped",
  crashed: "the session ended unexpectedly",
  "budget-exceeded": "the session hit its spending cap",
  "max-turns": "the session hit its turn limit",
  cancelled: "its run was cancelled (by loom after stale heartbeats, or by a person)",
};

function renderList(items: readonly string[], empty: string): string {
  return items.length === 0 ? `_${empty}_` : items.map((item) => `- ${item}`).join("\n");
}

/** The handoff as markdown for the next session's signal and the job summary. */
export function renderHandoffMarkdown(h: Handoff): string {
  const hb = h.last_heartbeat;
  const heartbeatLine =
    hb === null
      ? "_none_"
      : `${hb.timestamp}: context ${hb.context_percent.toFixed(1)} %, last tool ${hb.last_tool ?? "none"}, ` +
        `${hb.turns} turns, $${hb.cost_usd.toFixed(4)}`;
  const sections = [
    `# Handoff: stage \`${h.stage_id}\`, attempt ${h.attempt}`,
    `Session \`${h.session_id || "unknown"}\` stopped at ${h.created_at} because ${REASON_TEXT[h.reason]} ` +
      `(context ${h.context_percent.toFixed(1)} %).`,
    `## What was done\n\n${h.summary.trim() === "" ? "_nothing recorded_" : h.summary.trim()}`,
    `## What remains\n\n${renderList(h.remaining, "not recorded: re-read the assignment and check the acceptance criteria")}`,
    `## Files touched\n\n${renderList(h.files_touched, "none")}`,
    `## Recent activity\n\n${renderList(h.recent_activity, "none")}`,
  ];
  if (h.hook_notes !== null && h.hook_notes.trim() !== "") {
    sections.push(`## Notes written before compaction\n\n${h.hook_notes.trim()}`);
  }
  sections.push(`## Last heartbeat\n\n${heartbeatLine}`);
  return `${sections.join("\n\n")}\n`;
}
