import { z } from "zod";

/**
 * The plan as the reference `loom` CLI (cosmix/loom) writes it: the YAML inside the
 * `<!-- loom METADATA -->` block. Every stage field of the reference CLI is accepted; keys this
 * schema does not name are kept (`.loose()`) and reported as warnings by the validator.
 */

export const STAGE_TYPES = ["standard", "knowledge", "integration-verify", "knowledge-distill"] as const;
export const StageType = z.enum(STAGE_TYPES);
export type StageType = z.infer<typeof StageType>;

export const REASONING_EFFORTS = ["low", "medium", "high", "xhigh", "max"] as const;

/** An acceptance criterion: a shell command, or an extended check with success criteria. */
export const AcceptanceCheck = z
  .object({
    command: z.string(),
    description: z.string().optional(),
    stdout_contains: z.array(z.string()).optional(),
    stdout_not_contains: z.array(z.string()).optional(),
    stderr_empty: z.boolean().optional(),
    exit_code: z.number().int().optional(),
    timeout_secs: z.number().int().positive().optional(),
  })
  .loose();
export type AcceptanceCheck = z.infer<typeof AcceptanceCheck>;

export const AcceptanceCriterion = z.union([z.string(), AcceptanceCheck]);
export type AcceptanceCriterion = z.infer<typeof AcceptanceCriterion>;

/** A regex that must match in a source file: proof that a new piece is wired in. */
export const WiringCheck = z
  .object({
    source: z.string(),
    pattern: z.string(),
    description: z.string().optional(),
    /** Match `pattern` as plain text rather than a regex (reference CLI). */
    literal: z.boolean().optional(),
  })
  .loose();
export type WiringCheck = z.infer<typeof WiringCheck>;

export const SuccessCriteria = z
  .object({
    exit_code: z.number().int().optional(),
    stdout_contains: z.array(z.string()).optional(),
    stdout_not_contains: z.array(z.string()).optional(),
    stderr_empty: z.boolean().optional(),
    stderr_contains: z.array(z.string()).optional(),
  })
  .loose();
export type SuccessCriteria = z.infer<typeof SuccessCriteria>;

export const WiringTest = z
  .object({
    name: z.string().optional(),
    command: z.string(),
    success_criteria: SuccessCriteria.optional(),
    description: z.string().optional(),
  })
  .loose();
export type WiringTest = z.infer<typeof WiringTest>;

export const DeadCodeCheck = z
  .object({
    command: z.string(),
    fail_patterns: z.array(z.string()).optional(),
    ignore_patterns: z.array(z.string()).optional(),
  })
  .loose();
export type DeadCodeCheck = z.infer<typeof DeadCodeCheck>;

/** A before/after truth check: a command with the result it should give. */
export const TruthCheck = AcceptanceCheck;
export type TruthCheck = AcceptanceCheck;

export const Stage = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().optional(),
    dependencies: z.array(z.string()).default([]),
    parallel_group: z.string().optional(),
    acceptance: z.array(AcceptanceCriterion).default([]),
    setup: z.array(z.string()).default([]),
    files: z.array(z.string()).default([]),
    auto_merge: z.boolean().optional(),
    working_dir: z.string().default("."),
    stage_type: StageType.default("standard"),
    artifacts: z.array(z.string()).default([]),
    wiring: z.array(WiringCheck).default([]),
    wiring_tests: z.array(WiringTest).default([]),
    dead_code_check: DeadCodeCheck.optional(),
    before_stage: z.array(TruthCheck).default([]),
    after_stage: z.array(TruthCheck).default([]),
    context_budget: z.number().min(1).max(100).optional(),
    sandbox: z.record(z.string(), z.unknown()).optional(),
    model: z.string().optional(),
    reasoning_effort: z.enum(REASONING_EFFORTS).optional(),
    execution_mode: z.string().optional(),
    bug_fix: z.boolean().optional(),
    regression_test: z.unknown().optional(),
    code_review: z.unknown().optional(),
    implementers: z.unknown().optional(),
    subagent_timeout_secs: z.number().int().positive().optional(),
    /** This stage's session spend cap in US dollars (`--max-budget-usd`); wins over the plan's. */
    max_budget_usd: z.number().positive().optional(),
    /** This stage's session turn cap (`--max-turns`); wins over the plan's. */
    max_turns: z.number().int().positive().optional(),
  })
  .loose();
export type Stage = z.infer<typeof Stage>;

export const LoomMetadata = z
  .object({
    version: z.literal(1),
    stages: z.array(Stage),
    auto_merge: z.boolean().optional(),
    sandbox: z.record(z.string(), z.unknown()).optional(),
    /** Every session's spend cap in US dollars, unless a stage sets its own. */
    max_budget_usd: z.number().positive().optional(),
    /** Every session's turn cap, unless a stage sets its own. */
    max_turns: z.number().int().positive().optional(),
  })
  .loose();
export type LoomMetadata = z.infer<typeof LoomMetadata>;

/**
 * A parsed, valid plan. `id` is the file stem; `name` the first `# ` heading without `Plan:`.
 * Every stage has its `stage_type` resolved: the declared one, or the one its id/name implies when
 * the plan leaves `stage_type` out (as the reference CLI does).
 */
export type Plan = {
  id: string;
  name: string;
  path: string;
  metadata: LoomMetadata;
  stages: Stage[];
};

/** Where in the markdown file something is: 1-based line and column. */
export type Location = { line: number; column: number };

export type Diagnostic = {
  message: string;
  line: number;
  column: number;
  stage?: string;
};

/**
 * The outcome of `parsePlan`: the plan, or every error found in one pass. Both carry warnings.
 * A failed parse still names the plan and, when the stage list could be read, carries the stages
 * that parsed (so tools can show ids, dependencies and the cycle).
 */
export type PlanResult =
  | { ok: true; plan: Plan; warnings: Diagnostic[] }
  | {
      ok: false;
      errors: Diagnostic[];
      warnings: Diagnostic[];
      plan?: { id: string; name: string };
      stages?: Stage[];
    };

/** Limits against abuse: bytes of the plan file, YAML aliases resolved, stages in one plan. */
export const PLAN_LIMITS = { maxBytes: 1024 * 1024, maxAliasCount: 100, maxStages: 500 } as const;
