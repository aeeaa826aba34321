import type { Stage } from "../plan/plan.ts";
import { FINDINGS_PLACEHOLDER } from "../review/review-report.ts";

/** The stage's review dimensions (`code_review.dimensions`), blank names left out. */
export function listReviewDimensions(stage: Stage): string[] {
  return (stage.code_review?.dimensions ?? []).map((d) => d.trim()).filter((d) => d !== "");
}

/**
 * The reference's "Review Dimensions" checklist, and the report loom reads back: the session's
 * final message ends with a `## Code Review` section, one `### <dimension>` per dimension. "" when
 * the stage declares no dimensions.
 */
export function renderReviewSection(stage: Stage): string {
  const dimensions = listReviewDimensions(stage);
  if (dimensions.length === 0) return "";
  const requireAll = stage.code_review?.require_all ?? true;
  const intro = requireAll
    ? "Your review MUST explicitly address **every** dimension below before completing this stage (`require_all`). State your findings for each:"
    : "Address the following review dimensions where applicable:";
  const example = dimensions.map((d) => `### ${d}\n${FINDINGS_PLACEHOLDER}`).join("\n");
  return (
    `## Review Dimensions\n\n${intro}\n\n${dimensions.map((d) => `- [ ] **${d}**`).join("\n")}\n\n` +
    "End your final message with this report; loom reads it after you stop and " +
    (requireAll
      ? "fails the stage for each dimension it does not address:\n\n"
      : "shows it on the check run:\n\n") +
    `\`\`\`markdown\n## Code Review\n${example}\n\`\`\`\n`
  );
}
