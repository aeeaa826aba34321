import { z } from "zod";
import { TokenUsage } from "./stage-result.ts";

/**
 * A heartbeat of a running stage session (DESIGN §5). The action writes one about once a minute and
 * on each tool use and uploads it as the artifact `loom-heartbeat-<n>`; the app shows the newest one
 * on the check run and treats a stale one as a hung session. The PostToolUse hook writes a partial one
 * (no turns/cost: the hook does not see them) into `LOOM_HEARTBEAT_FILE`.
 */
export const Heartbeat = z.object({
  stage_id: z.string(),
  /** Claude Code's session id; empty until the stream's `system/init` line is seen. */
  session_id: z.string(),
  attempt: z.number().int().positive(),
  /** ISO 8601, UTC. */
  timestamp: z.iso.datetime({ offset: true }),
  /** Share of the model's context window used by the last request, 0–100. */
  context_percent: z.number().min(0).max(100),
  /** Name of the last tool used (`Write`, `Bash`, …), or null before the first one. */
  last_tool: z.string().nullable(),
  /** One short line: what the session is doing (e.g. `Write src/a.ts`, `thinking`). */
  activity: z.string().nullable(),
  /** Assistant turns so far. */
  turns: z.number().int().nonnegative(),
  cost_usd: z.number().nonnegative(),
  /** Cumulative tokens, when known (same shape as `loom-result`). */
  tokens: TokenUsage.optional(),
});
export type Heartbeat = z.infer<typeof Heartbeat>;
