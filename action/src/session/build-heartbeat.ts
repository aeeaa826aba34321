import { Heartbeat } from "../../../src/artifacts/heartbeat.ts";
import { readSessionFile } from "../isolation/read-session-file.ts";
import { sumTokens, type StreamObservation } from "./observe-stream.ts";

export type HeartbeatContext = {
  stageId: string;
  attempt: number;
  timestamp: string;
  contextPercent: number;
};

/**
 * A heartbeat from what the stream showed, with `last_tool` from the PostToolUse hook's file when
 * it is from this session: the hook sees tools that finished, the stream sees tools as they start.
 */
export function buildHeartbeat(
  o: StreamObservation,
  hook: Heartbeat | null,
  context: HeartbeatContext,
): Heartbeat {
  const hookSaw = hook !== null && hook.session_id === o.sessionId;
  return {
    stage_id: context.stageId,
    session_id: o.sessionId,
    attempt: context.attempt,
    timestamp: context.timestamp,
    context_percent: context.contextPercent,
    last_tool: hookSaw ? hook.last_tool : o.lastTool,
    activity: o.activity ?? (hookSaw ? hook.activity : null),
    turns: o.result?.num_turns ?? o.turns,
    cost_usd: o.result?.total_cost_usd ?? 0,
    tokens: sumTokens(o),
  };
}

/** A hook heartbeat is a few hundred bytes; a bigger file is not one. */
const MAX_HOOK_HEARTBEAT_BYTES = 64 * 1024;

/** The hook's heartbeat file, or null when it is missing, torn or not a heartbeat. */
export function readHookHeartbeat(path: string): Heartbeat | null {
  const text = readSessionFile(path, MAX_HOOK_HEARTBEAT_BYTES);
  if (text === null) return null;
  try {
    const parsed = Heartbeat.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null; // replaced mid-read or torn: the next heartbeat reads it again
  }
}

export type HeartbeatPublisher = {
  /** Hands a heartbeat to the caller's upload; returns false once the cap is reached. */
  publish(heartbeat: Heartbeat): boolean;
  /** Waits for uploads in flight. */
  drain(): Promise<void>;
};

/**
 * Calls the caller's `publishHeartbeat` without blocking the stream; a failed upload is logged,
 * never fatal. At most `max` heartbeats are published (Actions allows 500 artifacts a job).
 */
export function createHeartbeatPublisher(
  upload: ((heartbeat: Heartbeat) => Promise<void> | void) | undefined,
  max: number,
  log: (message: string, data?: Record<string, unknown>) => void,
): HeartbeatPublisher {
  const inFlight: Promise<void>[] = [];
  let count = 0;
  return {
    publish(heartbeat) {
      if (upload === undefined || count >= max) return false;
      count += 1;
      inFlight.push(
        (async () => {
          try {
            await upload(heartbeat);
          } catch (error) {
            log("publishing a heartbeat failed", { error: String(error) });
          }
        })(),
      );
      return true;
    },
    drain: async () => {
      await Promise.all(inFlight);
    },
  };
}
