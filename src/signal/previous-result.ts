import type { StageResult } from "../artifacts/stage-result.ts";

/** Commits and checks of the earlier result a handoff names at most. */
const MAX_LISTED = 30;

/**
 * What an earlier session did, from its `loom-result`, for a continue session that cannot resume
 * it: the outcome and why, its commits and its checks. The session's own handoff comes first when
 * it wrote one. Data for the prompt's handoff section (fenced there), never instructions.
 */
export function renderPreviousResult(result: StageResult): string {
  const lines = [
    `Attempt ${result.attempt} (${result.kind} session) ended ${result.outcome}: ${result.reason}`,
  ];
  if (result.handoff !== undefined && result.handoff.trim() !== "") lines.push("", result.handoff.trim());
  if (result.commits.length > 0)
    lines.push(
      "",
      "Its commits:",
      ...result.commits.slice(0, MAX_LISTED).map((c) => `- ${c.sha.slice(0, 7)} ${c.subject}`),
    );
  if (result.checks.length > 0)
    lines.push(
      "",
      "Its checks:",
      ...result.checks.slice(0, MAX_LISTED).map((c) => `- ${c.passed ? "passed" : "failed"}: ${c.name}`),
    );
  return lines.join("\n");
}
