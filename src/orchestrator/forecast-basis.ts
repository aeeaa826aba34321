/**
 * What each stage ahead is forecast at: the plan's average per completed stage; before any
 * completed, `budget.stage_estimate_usd`, else each stage's session cap (the most one session may
 * spend); `none` when none of these is known (caps opted out): the stages ahead count 0 then.
 */
export const FORECAST_BASES = ["average", "stage estimate", "session cap", "none"] as const;
export type ForecastBasis = (typeof FORECAST_BASES)[number];
