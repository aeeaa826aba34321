import type { PublishResult } from "../../src/artifacts/publish-result.ts";
import type { StageResult } from "../../src/artifacts/stage-result.ts";
import type { RunOutcome } from "../../src/orchestrator/events.ts";

export type RunEvidence = {
  /** GitHub's run status (`queued`, `in_progress`, `completed`, …). */
  status: string | null;
  conclusion: string | null;
  /** The run's `loom-result`, when present and valid. */
  result: StageResult | null;
  /** The run's `loom-publish`, when present and valid. */
  publish: PublishResult | null;
  /** Why an artifact that was there could not be used (shown with a crash). */
  problems: readonly string[];
};

export type DecidedOutcome = { outcome: RunOutcome; detail: string };

function describeRefusals(publish: PublishResult): string {
  const reasons = publish.refusals.map((r) => `${r.rule}${r.path ? ` (${r.path})` : ""}: ${r.detail}`);
  return reasons.length > 0 ? reasons.join("; ") : "no reason given";
}

/**
 * How a finished run ended, for `run.finished`; null while it is still going. Cancelled and timed
 * out runs say so whatever they left behind; otherwise the `loom-result` decides, except that a
 * completed session whose work the publish job refused (or never published) did not complete:
 * a refusal is `completed-with-failures` (a person must look), a publish job that died is a crash.
 * No result at all is a crash.
 */
export function decideRunOutcome(evidence: RunEvidence): DecidedOutcome | null {
  if (evidence.status !== "completed") return null;
  const problems = evidence.problems.length > 0 ? ` (${evidence.problems.join("; ")})` : "";
  if (evidence.conclusion === "cancelled") return { outcome: "cancelled", detail: "the run was cancelled" };
  if (evidence.conclusion === "timed_out")
    return { outcome: "timed-out", detail: "the run hit its time limit" };
  const { result, publish } = evidence;
  if (!result) {
    return {
      outcome: "crashed",
      detail: `the run ended (${evidence.conclusion ?? "no conclusion"}) without a loom-result${problems}`,
    };
  }
  if (publish && !publish.ok) {
    const base = result.outcome === "completed" ? "completed-with-failures" : result.outcome;
    return { outcome: base, detail: `publishing was refused: ${describeRefusals(publish)}` };
  }
  if (result.outcome === "completed" && !publish && evidence.conclusion !== "success") {
    return {
      outcome: "crashed",
      detail: `the session completed but its work was not published (${evidence.conclusion})${problems}`,
    };
  }
  return { outcome: result.outcome, detail: `${result.reason}${describeUnisolated(result)}` };
}

/**
 * A session that ran as the runner's own user (allowed by `session.require_isolation: false`)
 * could have read the runner's tokens: the stage's check run says so. A stage refused for want of
 * isolation started no session, and its reason already says why.
 */
function describeUnisolated(result: StageResult): string {
  if (result.isolation?.mode !== "none" || result.session_id === undefined) return "";
  return ` (not isolated: the session and the checks ran as the runner's own user and could read its tokens; ${result.isolation.reason})`;
}
