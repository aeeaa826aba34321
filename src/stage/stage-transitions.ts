import type { StageStatus } from "./stage-status.ts";

/**
 * Allowed stage status moves. The first part is the reference CLI's table (cosmix/loom, without
 * its `waiting-for-input`, which has no GitHub counterpart); the second part are the moves loom on
 * GitHub adds because a merge happens after a run instead of inside it, because people steer with
 * labels and commands, and because a plan file can change under a running plan.
 */
export const REFERENCE_TRANSITIONS: Readonly<Record<StageStatus, readonly StageStatus[]>> = {
  "waiting-for-deps": ["queued", "skipped"],
  queued: ["executing", "skipped", "blocked"],
  executing: [
    "completed",
    "blocked",
    "needs-handoff",
    "merge-conflict",
    "completed-with-failures",
    "merge-blocked",
    "needs-human-review",
  ],
  blocked: ["queued", "skipped"],
  completed: [],
  "needs-handoff": ["queued"],
  skipped: [],
  "merge-conflict": ["completed", "blocked"],
  "completed-with-failures": ["queued", "executing", "completed"],
  "merge-blocked": ["queued", "executing", "completed"],
  "needs-human-review": ["executing", "completed", "blocked"],
};

/** Moves added on GitHub, each with the reason it exists. */
export const GITHUB_TRANSITIONS: readonly { from: StageStatus; to: StageStatus; why: string }[] = [
  {
    from: "completed",
    to: "merge-conflict",
    why: "the merge into the merge point runs after the run completed",
  },
  {
    from: "completed",
    to: "merge-blocked",
    why: "the merge into the merge point runs after the run completed",
  },
  {
    from: "merge-conflict",
    to: "merge-blocked",
    why: "the merge session failed or the retried merge was refused",
  },
  { from: "merge-blocked", to: "merge-conflict", why: "a retried merge met a conflict" },
  { from: "blocked", to: "waiting-for-deps", why: "unblocked before its dependencies are ready" },
  { from: "queued", to: "waiting-for-deps", why: "the plan file gave it a dependency that is not ready" },
  { from: "executing", to: "skipped", why: "a person skipped it (its session is cancelled)" },
  { from: "needs-handoff", to: "skipped", why: "a person skipped it" },
  { from: "needs-handoff", to: "blocked", why: "a person blocked it" },
  { from: "completed-with-failures", to: "skipped", why: "a person skipped it" },
  { from: "completed-with-failures", to: "blocked", why: "a person blocked it" },
  { from: "merge-conflict", to: "skipped", why: "a person skipped it" },
  { from: "merge-blocked", to: "skipped", why: "a person skipped it" },
  { from: "merge-blocked", to: "blocked", why: "a person blocked it" },
  { from: "needs-human-review", to: "skipped", why: "a person skipped it" },
  {
    from: "needs-human-review",
    to: "queued",
    why: "a person runs it again (`/loom retry`); its new run is dispatched like any other",
  },
  {
    from: "needs-human-review",
    to: "waiting-for-deps",
    why: "a person runs it again while a dependency the plan file gave it since is not ready",
  },
  {
    from: "completed-with-failures",
    to: "waiting-for-deps",
    why: "a person runs it again while a dependency the plan file gave it since is not ready",
  },
  {
    from: "merge-conflict",
    to: "needs-human-review",
    why: "a merge session resolved the conflict of a stage a person merges (`auto_merge: false`): the resolution was not reviewed, so the stage waits for the person again",
  },
  { from: "waiting-for-deps", to: "blocked", why: "a person blocked it" },
];

export type TransitionResult = { ok: true } | { ok: false; reason: string };

/**
 * Whether a stage may move from `from` to `to`. Staying put is always allowed. A completed stage
 * is final once merged (`merged: true`), unless it is re-opened (`reopen`: `/loom continue`, a
 * re-run), which queues it for a new attempt (or has it wait for dependencies running again); before the merge only the merge may still fail. Skipped is
 * final. A refused move is a value with the reason, never a throw.
 */
export function transitionStage(
  from: StageStatus,
  to: StageStatus,
  context: { merged?: boolean; reopen?: boolean } = {},
): TransitionResult {
  if (from === to) return { ok: true };
  if (from === "completed" && context.merged === true) {
    if (context.reopen === true && (to === "queued" || to === "waiting-for-deps")) return { ok: true };
    return { ok: false, reason: `stage is completed and merged; it cannot become ${to}` };
  }
  if (REFERENCE_TRANSITIONS[from].includes(to)) return { ok: true };
  if (GITHUB_TRANSITIONS.some((move) => move.from === from && move.to === to)) return { ok: true };
  return { ok: false, reason: `a stage cannot go from ${from} to ${to}` };
}

/** Final states: nothing moves a stage out of them. */
export function isTerminalStage(stage: { status: StageStatus; merged: boolean }): boolean {
  return stage.status === "skipped" || (stage.status === "completed" && stage.merged);
}
