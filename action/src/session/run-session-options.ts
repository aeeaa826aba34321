import type { Heartbeat } from "../../../src/artifacts/heartbeat.ts";
import type { SessionSandbox } from "../isolation/session-isolation.ts";
import type { EffortLevel } from "./claude-args.ts";
import type { HookPrograms } from "./hook-settings.ts";

/** What one Claude Code session is run with (`runSession`); its own file so the session's parts share it without an import circle. */
export type RunSessionOptions = {
  prompt: string;
  cwd: string;
  claudePath: string;
  /** Environment of the session (model key, PATH, HOME …); loom adds its `LOOM_*` variables. */
  env: Readonly<Record<string, string | undefined>>;
  /**
   * Run Claude Code as the sandbox's separate user (the caller has lent it `cwd` and `stateDir`):
   * it is started and signalled as that user, and every process of that user is killed before
   * this returns. Left out: as the action's own user, in its own process group.
   */
  sandbox?: SessionSandbox;
  stageId: string;
  attempt: number;
  /** A fresh directory for this session's files: hook heartbeat, handoff notes, hook state. */
  stateDir: string;
  /** Where the raw stream-json lines go. */
  transcriptPath: string;
  /** loom's hook programs; null runs the session without hooks. */
  hooks: HookPrograms | null;
  allowedTools: readonly string[];
  model?: string;
  effort?: EffortLevel;
  maxBudgetUsd?: number;
  maxTurns?: number;
  appendSystemPrompt?: string;
  /**
   * Resume this earlier Claude Code session (`--resume`) with `prompt` as the next message; its
   * transcript is in place in the session's project folder (see `restoreSessionState`).
   */
  resume?: string;
  assignmentFile?: string;
  learningsFile?: string;
  stopMaxBlocks?: number;
  /** Stop with a handoff once the context reaches this share of the window (default 65). */
  contextBudgetPercent?: number;
  /** Context window in tokens until the result tells (default: 1,000,000 for `[1m]` models, else 200,000). */
  contextWindow?: number;
  /** No stream output for this long → kill the process group, `hung` (default 15 min). */
  silenceTimeoutMs?: number;
  /** Periodic heartbeat (default 60 s). */
  heartbeatIntervalMs?: number;
  /** Tool uses publish a heartbeat too, at most this often (default 15 s). */
  toolHeartbeatGapMs?: number;
  /** After the result line, how long the process may take to exit before it is killed (default 10 s). */
  exitGraceMs?: number;
  /** Between SIGTERM and SIGKILL when loom ends a session (default 3 s). */
  killGraceMs?: number;
  /** At most this many heartbeats are published (default 400; Actions allows 500 artifacts a job). */
  maxHeartbeats?: number;
  /**
   * Aborted when the run is cancelled (the action got SIGINT/SIGTERM): the session is ended at
   * once, with `killGraceMs` capped at `CANCEL_KILL_GRACE_MS`, and reported `cancelled` with a handoff.
   */
  signal?: AbortSignal;
  /** Called with each heartbeat (the caller uploads it); errors are logged, never fatal. */
  publishHeartbeat?: (heartbeat: Heartbeat) => Promise<void> | void;
  log?: (message: string, data?: Record<string, unknown>) => void;
  now?: () => Date;
};
