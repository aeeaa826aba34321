import { MAX_ACCEPTANCE_COMMAND_LENGTH } from "../plan/check-stage-fields.ts";
import { MAX_CONTINUE_INSTRUCTIONS, type ParsedCommand } from "./parse-command.ts";

/** The plans of a pull request with their stage ids, for help text and "did you mean". */
export type PlanStages = { planId: string; stageIds: string[] };

const USAGE = [
  "`/loom retry <stage> [--only]`: run the stage again (a completed one on the current head; its dependents follow where its new merge changes their files, unless `--only`)",
  "`/loom skip <stage>`: skip it (dependents may start)",
  "`/loom block <stage>` / `/loom unblock <stage>`: stop or release it",
  "`/loom cancel <stage>`: cancel its running session",
  "`/loom merge <stage> [<sha>]`: merge a stage that waits for a person (`auto_merge: false`), exactly the commit its checks ran on",
  "`/loom continue <stage> <instructions>`: resume the stage's last session with your instructions (the rest of the line, or the lines after it); a new attempt that merges again",
  "`/loom amend <stage> <n> <command>`: for this run, acceptance criterion n of a stage whose session disputed a criterion is the command; its checks run again (no model) on the commit the dispute was about",
  "`/loom reject <stage>`: reject a stage's dispute: the criterion stands and the stage is blocked",
  "`/loom rerun affected`: run again the completed stages a push affected (listed on the plan's check run, with the forecast cost)",
  "`/loom status`: refresh the status comment",
  "`/loom approve [<sha>]`: allow the head commit you reviewed to run (plans from forks or outside authors); a push after your comment needs a new approval",
  "`/loom budget +<usd>`: add to the budget of the pull request's plans (each plan), when a plan waits for budget",
  "`/loom help`: this text",
];

/**
 * The short reply for `/loom help` and for a command loom could not use. Commands are written
 * in inline code, never at the start of a line, so the reply is never read back as a command.
 */
export function renderCommandHelp(plans: PlanStages[], problem?: string): string {
  const lines: string[] = [];
  if (problem !== undefined) lines.push(`loom could not use that: ${problem}`, "");
  lines.push("Commands (one per line, sender needs write access):", ...USAGE.map((usage) => `- ${usage}`));
  if (plans.length > 0) {
    lines.push("", "Stages:");
    const qualify = plans.length > 1;
    for (const plan of plans) {
      const ids = plan.stageIds.map((id) => `\`${qualify ? `${plan.planId}/${id}` : id}\``);
      lines.push(`- ${plan.planId}: ${ids.length > 0 ? ids.join(", ") : "(none)"}`);
    }
  }
  return lines.join("\n");
}

/** Why a parsed command line was refused, in a sentence. */
export function describeParseFailure(failure: Extract<ParsedCommand, { ok: false }>): string {
  const shown = `\`${failure.line.slice(0, 100)}\``;
  switch (failure.reason) {
    case "unknown-command":
      return `${shown} is not a loom command.`;
    case "missing-stage":
      return `${shown} needs a stage id.`;
    case "unexpected-argument":
      return `${shown} has arguments loom does not take.`;
    case "bad-amount":
      return `${shown} needs an amount to add, like \`+5\` (US dollars, at most 10000).`;
    case "missing-instructions":
      return `${shown} needs instructions for the session: the rest of the line, or the lines after it.`;
    case "instructions-too-long":
      return `${shown} has instructions longer than ${MAX_CONTINUE_INSTRUCTIONS} characters: shorten them.`;
    case "bad-amendment":
      return `${shown} needs the criterion's number (as its check run shows it) and the new command, at most ${MAX_ACCEPTANCE_COMMAND_LENGTH} characters: \`/loom amend <stage> <n> <command>\`.`;
  }
}
