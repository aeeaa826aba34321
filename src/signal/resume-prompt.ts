import { renderAcceptance, renderInstructions } from "./dynamic-section.ts";
import { renderGoalBackwardSection } from "./goal-backward-section.ts";
import { renderRecitationSection } from "./recitation-section.ts";
import { renderReviewSection } from "./review-section.ts";
import type { SignalInput } from "./signal-input.ts";

/**
 * The prompt of a continue session that resumes Claude Code's earlier session of the stage
 * (`claude --resume`): the earlier assignment, work and context are in the conversation already,
 * so it carries only what is new: the person's instructions, where the work is now, and the checks
 * loom runs again.
 */
export function buildResumePrompt(input: SignalInput): string {
  const where =
    `## Where You Are\n\n` +
    `This is a new run of stage \`${input.stage.id}\` (attempt ${input.attempt}) on branch \`${input.branch}\`, ` +
    "checked out afresh: your earlier commits are there, and what you left uncommitted was committed " +
    "by loom. Paths in the conversation above may name the earlier checkout: work in the current " +
    "directory.\n";
  return [
    renderInstructions(input),
    where,
    renderAcceptance(input),
    renderGoalBackwardSection(input.stage),
    renderReviewSection(input.stage),
    renderRecitationSection(input),
  ]
    .filter((part) => part !== "")
    .join("\n");
}
