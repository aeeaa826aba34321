import { z } from "zod";
import { SESSION_KINDS } from "../../src/stage/stage-status.ts";

/** Action inputs arrive as strings; an empty one means "not set". */
const unset = (value: unknown): unknown => (value === "" ? undefined : value);
const optionalNumber = z.preprocess(unset, z.coerce.number().positive().optional());
const optionalInt = z.preprocess(unset, z.coerce.number().int().positive().optional());
const optionalText = z.preprocess(unset, z.string().optional());

export const DEFAULT_ALLOWED_TOOLS = [
  "Read",
  "Write",
  "Edit",
  "MultiEdit",
  "NotebookEdit",
  "Glob",
  "Grep",
  "LS",
  "Bash",
  "TodoWrite",
  "Task",
] as const;

/** The inputs of the action's `run` mode (see `action/action.yml`). */
export const RunStageInputs = z.object({
  plan_path: z.string().min(1),
  plan_id: z.string().min(1),
  stage_id: z.string().min(1),
  attempt: z.coerce.number().int().positive(),
  kind: z.preprocess(unset, z.enum(SESSION_KINDS).default("stage")),
  /** The stage branch, `loom/pr-<n>/<plan-id>/<stage-id>`; the checkout is on it. */
  branch: z.string().min(1),
  /** The merge point (the plan pull request's head branch). Needed by merge sessions. */
  base: optionalText,
  key: optionalText,
  previous_run_id: z.preprocess(unset, z.coerce.number().int().positive().optional()),
  max_budget_usd: optionalNumber,
  max_turns: optionalInt,
  silence_timeout_minutes: z.preprocess(unset, z.coerce.number().positive().default(15)),
  /** The default context budget; a stage's own `context_budget` wins. */
  context_budget_percent: z.preprocess(unset, z.coerce.number().min(1).max(100).optional()),
  /** The default model; a stage's own `model` wins. */
  model: optionalText,
  claude_path: z.preprocess(unset, z.string().default("claude")),
  check_timeout_minutes: z.preprocess(unset, z.coerce.number().positive().default(10)),
  allowed_tools: z.preprocess(
    unset,
    z
      .string()
      .default(DEFAULT_ALLOWED_TOOLS.join(","))
      .transform((text) =>
        text
          .split(/[,\n]/)
          .map((tool) => tool.trim())
          .filter((tool) => tool !== ""),
      ),
  ),
});
export type RunStageInputs = z.infer<typeof RunStageInputs>;
