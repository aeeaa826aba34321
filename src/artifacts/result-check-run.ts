import { z } from "zod";
import { PublishResult } from "./publish-result.ts";
import { StageResult } from "./stage-result.ts";

/**
 * The `loom result` check run: the publish job, once it pushed a stage's work, creates a completed
 * check run on the pushed commit with its job token (`checks: write`) whose text is the run's
 * outcome as the App would read it from the `loom-publish` artifact. GitHub sends `check_run`
 * webhooks of every app's runs to an App with checks permission, so the App learns how the run
 * ended from the webhook alone: no artifact list, no download. Anything else (no check run, an
 * unreadable one, a run the App did not record) falls back to the artifacts.
 */
export const RESULT_CHECK_RUN_NAME = "loom result";

/** GitHub's limit on a check run's `output.text` (characters). */
export const RESULT_CHECK_RUN_MAX_TEXT = 65_535;

export const CarriedOutcome = z.object({
  version: z.literal(1),
  /** `GITHUB_RUN_ID` of the run whose publish job wrote it: the App believes it only for that run. */
  run_id: z.number().int().positive(),
  result: StageResult,
  publish: PublishResult,
});
export type CarriedOutcome = z.infer<typeof CarriedOutcome>;

export type ResultCheckRun = { name: string; title: string; summary: string; text: string };

/**
 * The check run the publish job creates for `outcome`; null when its text would pass GitHub's
 * limit even without the handoff (only a recovery session reads that, from the artifact).
 */
export function formatResultCheckRun(outcome: CarriedOutcome): ResultCheckRun | null {
  const { handoff: _handoff, ...result } = outcome.result;
  const text = JSON.stringify({ ...outcome, result });
  if (text.length > RESULT_CHECK_RUN_MAX_TEXT) return null;
  const passed = result.checks.filter((check) => check.passed).length;
  return {
    name: RESULT_CHECK_RUN_NAME,
    title: `${result.stage_id} attempt ${result.attempt}: ${result.outcome}`,
    summary: `Stage \`${result.stage_id}\` of \`${result.plan_id}\`, attempt ${result.attempt}: ${result.outcome}, ${passed} of ${result.checks.length} checks passed. loom reads this run's text; the stage's own check run shows it.`,
    text,
  };
}

/** The outcome a `loom result` check run carries; null when its text is not one. */
export function parseResultCheckRun(text: string | null | undefined): CarriedOutcome | null {
  if (typeof text !== "string" || text.length > RESULT_CHECK_RUN_MAX_TEXT) return null;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = CarriedOutcome.safeParse(json);
  return parsed.success ? parsed.data : null;
}
