/** Stage statuses of the reference CLI. `merged` is a separate flag on the stage state. */
export const STAGE_STATUSES = [
  "waiting-for-deps",
  "queued",
  "executing",
  "blocked",
  "completed",
  "needs-handoff",
  "skipped",
  "merge-conflict",
  "completed-with-failures",
  "merge-blocked",
  "needs-human-review",
] as const;
export type StageStatus = (typeof STAGE_STATUSES)[number];

/** One dispatched Actions run of a stage. */
export const SESSION_STATUSES = [
  "spawning",
  "running",
  "completed",
  "crashed",
  "context-exhausted",
  "hung",
  "cancelled",
] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/**
 * `continue`: a person's `/loom continue <stage> <instructions>`: Claude Code's earlier session of
 * the stage resumed with the instructions (or, without its state, a handoff prompt carrying them).
 * `check`: a person's `/loom amend` of a disputed acceptance criterion: no model runs; the stage's
 * checks run again, with the amended criteria, on exactly the commit the dispute was about.
 */
export const SESSION_KINDS = ["stage", "recovery", "merge", "continue", "check"] as const;
export type SessionKind = (typeof SESSION_KINDS)[number];
