/**
 * What a stage session and a plan may spend when nobody set a cap. One constant read by the App
 * (its forecast, the plan's check run) and by the action (`--max-budget-usd`, `--max-turns`), so
 * the two agree on what a session runs with.
 *
 * Why these numbers. The pinned Claude Code's default model with an API key is Opus-class
 * (`claude-opus-4-8`: $5 per million input tokens, $25 output, $0.50 cache reads, $6.25 cache
 * writes). A stage session runs some 30–80 turns, re-reading a 50–150k-token context from the
 * cache on each: $1–4 of cache reads, $0.5–1.5 of output (thinking included) and $1–2 of cache
 * writes, so $2–7 in all. A $10 cap leaves a heavy session room and stops a runaway one at the
 * price of about two ordinary ones; reaching it is not fatal (the session ends with a handoff and
 * a recovery session continues). Past 200 turns a session is more likely looping than working.
 * Real plans have 1–6 stages (the reference CLI's corpus): forecast at the cap, $10–60, they fit
 * a $100 budget; a plan of more than 10 stages waits for a person's `/loom budget +<usd>` (or a
 * configured budget) before its first stage starts.
 */
export const DEFAULT_CAPS = {
  /** A session's `--max-budget-usd` (US dollars). */
  sessionBudgetUsd: 10,
  /** A session's `--max-turns`. */
  sessionTurns: 200,
  /** A plan's budget (US dollars): no stage starts when the spend plus the forecast would pass it. */
  planBudgetUsd: 100,
} as const;

/** The value that opts out of a default cap in `.github/loom.yml` (`budget.plan_usd: none`). */
export const NO_CAP = "none";
