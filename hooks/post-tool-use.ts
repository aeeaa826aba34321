import { existsSync, readFileSync } from "node:fs";
import { Heartbeat } from "../src/artifacts/heartbeat.ts";
import { describeToolUse, PostToolUseInput } from "../src/artifacts/hook-input.ts";
import type { HookEnv } from "./hook-env.ts";
import { runHook, writeFileAtomic, type HookReply } from "./read-hook-input.ts";

function readPreviousHeartbeat(path: string): Heartbeat | null {
  if (!existsSync(path)) return null; // first tool use of the session
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    // A torn or foreign file: start a fresh heartbeat.
    process.stderr.write(`loom PostToolUse hook: previous heartbeat unreadable (${String(error)})\n`);
    return null;
  }
  const parsed = Heartbeat.safeParse(json);
  return parsed.success ? parsed.data : null;
}

/**
 * PostToolUse: replace the heartbeat file with the tool that just finished (a failed tool fires no
 * PostToolUse). Fields a hook cannot know (turns, cost, context) are kept from the previous heartbeat
 * in the file, or zero; the action's runner takes only `last_tool` / `activity` from this file.
 */
export function handlePostToolUse(input: PostToolUseInput, env: HookEnv, now: Date): HookReply {
  const path = env.LOOM_HEARTBEAT_FILE;
  if (path === undefined) return { exitCode: 0 };
  const previous = readPreviousHeartbeat(path);
  const heartbeat: Heartbeat = {
    stage_id: env.LOOM_STAGE_ID,
    session_id: input.session_id,
    attempt: env.LOOM_ATTEMPT,
    timestamp: now.toISOString(),
    context_percent: previous?.context_percent ?? 0,
    last_tool: input.tool_name,
    activity: describeToolUse(input.tool_name, input.tool_input),
    turns: previous?.turns ?? 0,
    cost_usd: previous?.cost_usd ?? 0,
    ...(previous?.tokens === undefined ? {} : { tokens: previous.tokens }),
  };
  writeFileAtomic(path, `${JSON.stringify(heartbeat)}\n`);
  return { exitCode: 0 };
}

if (import.meta.main) await runHook("PostToolUse", PostToolUseInput, handlePostToolUse);
