/** Where the cap a session runs with comes from; `opted out`: `.github/loom.yml` says `none` and nobody set one. */
export type CapSource = "stage" | "plan" | ".github/loom.yml" | "action input" | "default" | "opted out";

/** The caps sessions run with and where each comes from (no cap: its value absent). */
export type CapsInForce = {
  maxBudgetUsd?: number;
  maxTurns?: number;
  /** Where each cap comes from (a cap lowered to the repository's ceiling: `.github/loom.yml`). */
  from: { maxBudgetUsd: CapSource; maxTurns: CapSource };
};
