import { existsSync, readFileSync } from "node:fs";
import { SessionStartInput } from "../src/artifacts/hook-input.ts";
import type { HookEnv } from "./hook-env.ts";
import { runHook, type HookReply } from "./read-hook-input.ts";

const EXCERPT_CHARS = 3000;

/** The text that puts the agent back on its stage after compaction or a resume. */
export function renderReanchor(env: HookEnv): string {
  const lines = [
    `loom: you are working on stage \`${env.LOOM_STAGE_ID || "unknown"}\` (attempt ${env.LOOM_ATTEMPT}). ` +
      "The conversation was compacted or resumed: re-read your assignment before going on.",
  ];
  const assignment = env.LOOM_ASSIGNMENT_FILE;
  if (assignment !== undefined && existsSync(assignment)) {
    const text = readFileSync(assignment, "utf8");
    lines.push(`Your full assignment is in ${assignment}. Its beginning:`, text.slice(0, EXCERPT_CHARS));
  }
  const handoff = env.LOOM_HANDOFF_FILE;
  if (handoff !== undefined && existsSync(handoff)) {
    lines.push(
      `Notes written just before compaction (what you did so far): ${handoff}`,
      readFileSync(handoff, "utf8"),
    );
  }
  return lines.join("\n\n");
}

/** SessionStart: after `compact` or `resume`, add re-anchoring context; on a fresh start, nothing. */
export function handleSessionStart(input: SessionStartInput, env: HookEnv, _now: Date): HookReply {
  if (input.source !== "compact" && input.source !== "resume") return { exitCode: 0 };
  const output = {
    hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: renderReanchor(env) },
  };
  return { exitCode: 0, stdout: `${JSON.stringify(output)}\n` };
}

if (import.meta.main) await runHook("SessionStart", SessionStartInput, handleSessionStart);
