import { listReviewDimensions } from "./review-section.ts";
import { DEFAULT_CONTEXT_BUDGET_PERCENT, type SignalInput } from "./signal-input.ts";

/** Lines of the description that read as tasks: list items and numbered steps. */
export function extractTasks(description: string | undefined): string[] {
  if (description === undefined) return [];
  return description
    .split("\n")
    .map((line) => /^\s*(?:[-*+]|\d+[.)])\s+(.+)$/.exec(line)?.[1]?.trim())
    .filter((task): task is string => task !== undefined && task !== "");
}

function immediateTasks(input: SignalInput): string[] {
  switch (input.kind) {
    case "merge":
      return [
        "Merge, resolve the conflicting files, keep both sides' intent",
        "Run the acceptance criteria until they pass",
        "Commit the merge",
      ];
    case "continue":
      return [
        `Carry out the instructions from @${input.instructions?.by ?? "the person who continued the stage"}`,
        "Run the acceptance criteria until they pass, and commit",
      ];
    case "recovery":
      return [
        "Read the handoff above and `git log` to see what is already done",
        "Finish what remains of the assignment",
        "Run the acceptance criteria until they pass, and commit",
      ];
    case "check":
      // No session runs: the checks run again with a person's amended criteria.
      return [];
    case "stage": {
      const tasks = extractTasks(input.stage.description);
      if (tasks.length > 0) return [...tasks, "Run the acceptance criteria until they pass, and commit"];
      return ["Implement the assignment", "Run the acceptance criteria until they pass", "Commit your work"];
    }
  }
}

function renderContextWarning(input: SignalInput): string {
  const budget = input.stage.context_budget ?? DEFAULT_CONTEXT_BUDGET_PERCENT;
  const lines = [
    `Your context budget is ${budget} % of the model's window. When you cross it, loom stops the session`,
    "and a new one continues from a handoff: commit finished pieces early so nothing is lost.",
  ];
  const used = input.kind === "recovery" ? input.lastHeartbeat?.context_percent : undefined;
  if (used !== undefined && used >= budget * 0.8) {
    lines.push(
      `The previous session stopped at ${used.toFixed(0)} % context: work in smaller steps and commit after each.`,
    );
  }
  return `## Context Budget\n\n${lines.join("\n")}\n`;
}

/** At the end for attention: the immediate tasks and context warnings. */
export function renderRecitationSection(input: SignalInput): string {
  const learnings =
    input.learningsFile === undefined || input.kind === "merge"
      ? []
      : [`Before you stop, record what you learned in \`${input.learningsFile}\` (see Recording Learnings)`];
  const review =
    input.kind === "merge" || listReviewDimensions(input.stage).length === 0
      ? []
      : ["End your final message with the `## Code Review` report (see Review Dimensions)"];
  const tasks = [...immediateTasks(input), ...learnings, ...review].map((task, i) => `${i + 1}. ${task}`);
  return `## Immediate Tasks\n\n${tasks.join("\n")}\n\n${renderContextWarning(input)}`;
}
