import { join } from "node:path";
import type { HookSettings } from "./hook-settings.ts";

export const EFFORT_LEVELS = ["low", "medium", "high", "xhigh", "max"] as const;
export type EffortLevel = (typeof EFFORT_LEVELS)[number];

export type ClaudeArgsInput = {
  model?: string;
  effort?: EffortLevel;
  allowedTools: readonly string[];
  maxBudgetUsd?: number;
  maxTurns?: number;
  appendSystemPrompt?: string;
  settings: HookSettings | Record<string, unknown>;
  /** Folders outside the working directory the session's tools may use (`--add-dir`). */
  additionalDirs?: readonly string[];
  /** Resume this Claude Code session (`--resume <id>`): its transcript must be in the project folder. */
  resume?: string;
};

/**
 * The command line of a headless stage session. The prompt goes on stdin (no argv size limit).
 * `--setting-sources ""` keeps the checked-out branch's `.claude/` settings and hooks out: only the
 * settings passed with `--settings` apply.
 */
export function buildClaudeArgs(input: ClaudeArgsInput): string[] {
  const args = [
    "-p",
    "--output-format",
    "stream-json",
    "--verbose",
    "--permission-mode",
    "acceptEdits",
    "--setting-sources",
    "",
    "--settings",
    JSON.stringify(input.settings),
  ];
  if (input.resume !== undefined) args.push("--resume", input.resume);
  if (input.allowedTools.length > 0) args.push("--allowedTools", input.allowedTools.join(","));
  if (input.model !== undefined) args.push("--model", input.model);
  if (input.effort !== undefined) args.push("--effort", input.effort);
  if (input.maxBudgetUsd !== undefined) args.push("--max-budget-usd", String(input.maxBudgetUsd));
  if (input.maxTurns !== undefined) args.push("--max-turns", String(input.maxTurns));
  if (input.appendSystemPrompt !== undefined) args.push("--append-system-prompt", input.appendSystemPrompt);
  // `--add-dir` takes several values: one flag per folder, each followed by another flag or the end.
  for (const dir of input.additionalDirs ?? []) args.push("--add-dir", dir);
  return args;
}

/** Files the hooks share with the runner, inside the session's state directory. */
export type SessionFiles = {
  heartbeatFile: string;
  handoffNotesFile: string;
  hookStateDir: string;
};

/** Where the session's files live in its state directory. */
export function locateSessionFiles(stateDir: string): SessionFiles {
  return {
    heartbeatFile: join(stateDir, "heartbeat.json"),
    handoffNotesFile: join(stateDir, "handoff-notes.md"),
    hookStateDir: join(stateDir, "hook-state"),
  };
}

export type HookEnvInput = SessionFiles & {
  stageId: string;
  attempt: number;
  assignmentFile?: string;
  learningsFile?: string;
  stopMaxBlocks?: number;
};

/** The `LOOM_*` environment loom's hooks read (see `hooks/hook-env.ts`). */
export function buildHookEnv(input: HookEnvInput): Record<string, string> {
  return {
    LOOM_HEARTBEAT_FILE: input.heartbeatFile,
    LOOM_HANDOFF_FILE: input.handoffNotesFile,
    LOOM_STATE_DIR: input.hookStateDir,
    LOOM_STAGE_ID: input.stageId,
    LOOM_ATTEMPT: String(input.attempt),
    ...(input.assignmentFile === undefined ? {} : { LOOM_ASSIGNMENT_FILE: input.assignmentFile }),
    ...(input.learningsFile === undefined ? {} : { LOOM_LEARNINGS_FILE: input.learningsFile }),
    ...(input.stopMaxBlocks === undefined ? {} : { LOOM_STOP_MAX_BLOCKS: String(input.stopMaxBlocks) }),
  };
}
