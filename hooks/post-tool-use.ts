import { readFileSync } from "node:fs";
import { Heartbeat } from "../src/artifacts/heartbeat.ts";
import { describeToolUse, PostToolUseInput } from "../src/artifacts/hook-input.ts";
import type { HookEnv } from "./hook-env.ts";
import { runHook, writeFileAtomic, type HookReply } from "./read-hook-input.ts";

function readPreviousHeartbeat(path: string): Heartbeat | null {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    // First tool use of the session (no file yet) or a torn file: start a fresh heartbeat.
    process.stderr.write(`loom PostToolUse hook: no previous heartbeat (${String(error)})\n`);
    return null;
  }
  const parsed = Heartbeat.safeParse(json);
  return parsed.success ? parsed.data : null;
}

/**
 * PostToolUse: replace the heartbeat file with the tool just used. Turns, cost and context come from
 * the previous heartbeat (the action's stream reader knows them; a hook does not).
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
