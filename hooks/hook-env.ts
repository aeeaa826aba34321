import { z } from "zod";

/**
 * What the action tells loom's hooks through the session's environment (hooks inherit Claude Code's
 * environment). Every field is optional: a hook without what it needs does nothing (fails open).
 */
export const HookEnv = z.object({
  /** The PostToolUse hook writes the newest heartbeat here (replaced atomically). */
  LOOM_HEARTBEAT_FILE: z.string().min(1).optional(),
  /** Hook state (circuit breakers) lives here. */
  LOOM_STATE_DIR: z.string().min(1).optional(),
  LOOM_STAGE_ID: z.string().default(""),
  LOOM_ATTEMPT: z.coerce.number().int().positive().catch(1).default(1),
  /** The PreCompact hook writes its handoff notes here (markdown). */
  LOOM_HANDOFF_FILE: z.string().min(1).optional(),
  /** The stage's assignment (the signal), for re-anchoring after compaction. */
  LOOM_ASSIGNMENT_FILE: z.string().min(1).optional(),
  /** When set, the Stop hook asks for learnings to be recorded in this file. */
  LOOM_LEARNINGS_FILE: z.string().min(1).optional(),
  LOOM_STOP_MAX_BLOCKS: z.coerce.number().int().nonnegative().catch(3).default(3),
});
export type HookEnv = z.infer<typeof HookEnv>;

export function readHookEnv(env: Readonly<Record<string, string | undefined>>): HookEnv {
  const parsed = HookEnv.safeParse(env);
  return parsed.success ? parsed.data : HookEnv.parse({});
}
