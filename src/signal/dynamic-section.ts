import type { Heartbeat } from "../artifacts/heartbeat.ts";
import { describeCriterion } from "./describe-criterion.ts";
import { fenceData } from "./fence-data.ts";
import { renderGoalBackwardSection } from "./goal-backward-section.ts";
import { renderRanBefore } from "./ran-before-section.ts";
import { renderReviewSection } from "./review-section.ts";
import type { SignalInput } from "./signal-input.ts";

function renderTarget(input: SignalInput): string {
  const { plan, stage, kind, attempt } = input;
  const lines = [
    `- **Plan**: ${plan.name} (\`${plan.id}\`, \`${plan.path}\`)`,
    `- **Stage**: ${stage.name} (\`${stage.id}\`)`,
    `- **Session**: ${kind}, attempt ${attempt}`,
    `- **Branch**: \`${input.branch}\``,
  ];
  if (input.base !== undefined) lines.push(`- **Merge point**: \`${input.base}\``);
  lines.push(`- **working_dir**: \`${stage.working_dir}\` (acceptance criteria run from there)`);
  return `## Target\n\n${lines.join("\n")}\n`;
}

function renderAssignment(input: SignalInput): string {
  const description = input.stage.description?.trim() ?? "";
  const body = description === "" ? "(no description provided)" : description;
  return `## Assignment\n\n${input.stage.name}: ${body}\n`;
}

function renderDependencies(input: SignalInput): string {
  const deps = input.stage.dependencies;
  if (deps.length === 0) return "";
  const outputs = new Map((input.dependencyOutputs ?? []).map((o) => [o.stageId, o.summary.trim()]));
  const lines = deps.map((id) => {
    const dep = input.plan.stages.find((s) => s.id === id);
    const name = dep === undefined ? id : `${dep.name} (\`${id}\`)`;
    const output = outputs.get(id);
    return output === undefined || output === "" ? `- ${name}` : `- ${name}: ${output}`;
  });
  return (
    "## Dependency Outputs\n\nThese stages are complete and already merged into your branch:\n\n" +
    `${lines.join("\n")}\n`
  );
}

function renderHeartbeat(hb: Heartbeat): string {
  return (
    `Last heartbeat of the previous session (${hb.timestamp}): context ${hb.context_percent.toFixed(1)} %, ` +
    `last tool ${hb.last_tool ?? "none"}, activity ${hb.activity ?? "unknown"}, ${hb.turns} turns.`
  );
}

const HANDOFF_INTRO: Record<"recovery" | "continue", string[]> = {
  recovery: [
    "An earlier session of this stage stopped before finishing. Its commits are on your branch:",
    "check `git log` and the working tree, then continue from where it stopped. Do not redo work.\n",
  ],
  continue: [
    "An earlier session of this stage did its work; its commits are on your branch (check `git log`",
    "and the working tree). Build on it to carry out the instructions below. Do not redo work.\n",
  ],
};

function renderHandoff(input: SignalInput): string {
  if (input.kind !== "recovery" && input.kind !== "continue") return "";
  const handoff = input.handoff?.trim() ?? "";
  const parts = ["## Previous Session Handoff\n", ...HANDOFF_INTRO[input.kind]];
  parts.push(
    handoff === ""
      ? "The previous session left no handoff document.\n"
      : `${fenceData("handoff", handoff)}\n`,
  );
  if (input.lastHeartbeat !== undefined) parts.push(`${renderHeartbeat(input.lastHeartbeat)}\n`);
  return parts.join("\n");
}

/** A person's `/loom continue` instructions, quoted as theirs. "" for other sessions. */
export function renderInstructions(input: SignalInput): string {
  if (input.kind !== "continue" || input.instructions === undefined) return "";
  const { text, by, fromAttempt } = input.instructions;
  return (
    `## Instructions from @${by}\n\n` +
    `@${by}, who has write access to this repository, continued this stage from attempt ${fromAttempt} ` +
    `with these instructions (\`/loom continue\`). Carry them out on top of the earlier work:\n\n` +
    `${fenceData("instructions", text)}\n`
  );
}

function renderConflicts(input: SignalInput): string {
  if (input.kind !== "merge") return "";
  const files = input.conflictFiles ?? [];
  const list =
    files.length === 0 ? "- (not known: `git status` lists them)" : files.map((f) => `- \`${f}\``).join("\n");
  const base = input.base === undefined ? "the merge point" : `\`${input.base}\``;
  return (
    `## Conflicting Files\n\n${list}\n\n## Your Task\n\n` +
    `1. If \`git status\` shows no merge in progress, merge ${base} into this branch: ` +
    `\`git merge ${input.base === undefined ? "<merge point>" : `origin/${input.base}`}\`.\n` +
    "2. Resolve every conflict in the files above, keeping the intent of both sides.\n" +
    "3. Build and run the acceptance criteria below until they pass.\n" +
    "4. `git add` the resolved files and `git commit` the merge.\n"
  );
}

export function renderAcceptance(input: SignalInput): string {
  const { acceptance, working_dir } = input.stage;
  const items =
    acceptance.length === 0
      ? "- (none declared: the assignment itself is the criterion)"
      : acceptance.map(describeCriterion).join("\n");
  const setup = input.stage.setup;
  const after =
    setup.length === 0 || acceptance.length === 0
      ? ""
      : `, each in a shell that first runs the stage's setup (\`${setup.join(" && ")}\`)`;
  const dispute =
    input.disputeFile === undefined || acceptance.length === 0
      ? ""
      : "\nIf a criterion is wrong or cannot pass for a reason outside this stage (not because the work " +
        "is unfinished), do not work around it: write one JSON object to " +
        `\`${input.disputeFile}\`: \`{"criterion_index": <0 for the first criterion above>, "reason": "<why, at most 500 characters>"}\`` +
        ", commit your work and stop. If that criterion fails, the stage waits for a person, who amends it " +
        "or rejects the dispute.\n";
  const amended = (input.amendedCriteria ?? []).map(
    (a) =>
      `- criterion ${a.index + 1} is \`${a.command}\`, amended by @${a.by} (\`/loom amend\`); the plan file still says \`${a.was}\``,
  );
  const amendedNote =
    amended.length === 0
      ? ""
      : `\nAmended for this run of the plan by a person with write access; loom checks the amended command:\n\n${amended.join("\n")}\n`;
  return `## Acceptance Criteria\n\nloom runs these from \`${working_dir}\` after you stop${after}:\n\n${items}\n${amendedNote}${dispute}`;
}

function renderFiles(input: SignalInput): string {
  const files = input.stage.files;
  if (files.length === 0) return "";
  return `## Files\n\nThis stage is expected to touch:\n\n${files.map((f) => `- \`${f}\``).join("\n")}\n`;
}

/** Changes per session: target, assignment, dependencies, handoff or conflicts, checks, files. */
export function renderDynamicSection(input: SignalInput): string {
  return [
    renderTarget(input),
    renderAssignment(input),
    renderDependencies(input),
    renderRanBefore(input),
    renderHandoff(input),
    renderInstructions(input),
    renderConflicts(input),
    renderAcceptance(input),
    renderGoalBackwardSection(input.stage),
    input.kind === "merge" ? "" : renderReviewSection(input.stage),
    renderFiles(input),
  ]
    .filter((part) => part !== "")
    .join("\n");
}
