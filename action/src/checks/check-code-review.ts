import type { CheckResult } from "../../../src/artifacts/stage-result.ts";
import type { Stage } from "../../../src/plan/plan.ts";
import { redactSecrets } from "../../../src/redact/redact-secrets.ts";
import { findReviewEntry, parseReviewReport } from "../../../src/review/review-report.ts";
import { listReviewDimensions } from "../../../src/signal/review-section.ts";

/**
 * One check per `code_review` dimension, read from the `## Code Review` report the session wrote
 * (`reportText`: its newest message holding one, else its final message; null when it left
 * neither): a dimension with findings passes
 * and carries them; a dimension left out fails under `require_all` (the default) and is only
 * warned about without it.
 */
export function checkCodeReview(
  stage: Stage,
  reportText: string | null,
  knownSecrets: readonly string[],
): CheckResult[] {
  const dimensions = listReviewDimensions(stage);
  if (dimensions.length === 0) return [];
  const requireAll = stage.code_review?.require_all ?? true;
  const report = parseReviewReport(reportText);
  const where =
    report.length === 0
      ? "no message of the session holds a `## Code Review` report"
      : `the session's \`## Code Review\` report names ${report.map((e) => e.dimension).join(", ")}`;
  return dimensions.map((dimension): CheckResult => {
    const entry = findReviewEntry(report, dimension);
    const base = { kind: "code_review" as const, name: dimension.slice(0, 1024), duration_ms: 0 };
    if (entry !== undefined)
      return {
        ...base,
        passed: true,
        output_tail: redactSecrets(entry.findings, knownSecrets).slice(0, 4000),
      };
    const missing = `review dimension "${dimension}" was not addressed: ${where}`;
    return requireAll
      ? { ...base, passed: false, output_tail: redactSecrets(missing, knownSecrets).slice(0, 4000) }
      : {
          ...base,
          passed: true,
          warned: true,
          output_tail: redactSecrets(`${missing} (require_all: false)`, knownSecrets).slice(0, 4000),
        };
  });
}
