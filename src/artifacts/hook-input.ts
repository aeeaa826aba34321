import { z } from "zod";

/**
 * The JSON Claude Code writes on a hook's stdin (checked with Claude Code 2.1.197). Only the fields
 * loom uses are listed; unknown fields are kept (`looseObject`) so a newer Claude Code does not break
 * a hook.
 */
const HookBase = {
  session_id: z.string(),
  transcript_path: z.string().optional(),
  cwd: z.string().optional(),
};

export const PostToolUseInput = z.looseObject({
  ...HookBase,
  hook_event_name: z.literal("PostToolUse"),
  tool_name: z.string(),
  tool_input: z.record(z.string(), z.unknown()).default({}),
  tool_response: z.unknown().optional(),
  tool_use_id: z.string().optional(),
});
export type PostToolUseInput = z.infer<typeof PostToolUseInput>;

export const PreCompactInput = z.looseObject({
  ...HookBase,
  hook_event_name: z.literal("PreCompact"),
  trigger: z.string().optional(),
  custom_instructions: z.string().nullable().optional(),
});
export type PreCompactInput = z.infer<typeof PreCompactInput>;

export const StopInput = z.looseObject({
  ...HookBase,
  hook_event_name: z.literal("Stop"),
  stop_hook_active: z.boolean().default(false),
  last_assistant_message: z.string().optional(),
});
export type StopInput = z.infer<typeof StopInput>;

export const SessionStartInput = z.looseObject({
  ...HookBase,
  hook_event_name: z.literal("SessionStart"),
  /** `startup`, `resume`, `clear` or `compact`. */
  source: z.string(),
});
export type SessionStartInput = z.infer<typeof SessionStartInput>;

export const HookInput = z.discriminatedUnion("hook_event_name", [
  PostToolUseInput,
  PreCompactInput,
  StopInput,
  SessionStartInput,
]);
export type HookInput = z.infer<typeof HookInput>;

/** Paths a tool call touches, when its input names them (Write, Edit, MultiEdit, NotebookEdit, Read). */
export function findToolPath(toolInput: Readonly<Record<string, unknown>>): string | null {
  for (const key of ["file_path", "notebook_path", "path"] as const) {
    const value = toolInput[key];
    if (typeof value === "string" && value !== "") return value;
  }
  return null;
}

/** One short line for a heartbeat: `Write src/a.ts`, `Bash npm test`. */
export function describeToolUse(toolName: string, toolInput: Readonly<Record<string, unknown>>): string {
  const command = toolInput["command"];
  const pattern = toolInput["pattern"];
  const detail =
    findToolPath(toolInput) ??
    (typeof command === "string" ? command : null) ??
    (typeof pattern === "string" ? pattern : null) ??
    "";
  const oneLine = detail.replace(/\s+/g, " ").trim();
  const short = oneLine.length > 120 ? `${oneLine.slice(0, 117)}...` : oneLine;
  return short === "" ? toolName : `${toolName} ${short}`;
}

/** Tools that change files in the working directory. */
export const FILE_WRITING_TOOLS: readonly string[] = ["Write", "Edit", "MultiEdit", "NotebookEdit"];
