import { z } from "zod";
import { SandboxConfig } from "./sandbox-config.ts";

/**
 * The plan as the reference `loom` CLI (cosmix/loom) writes it: the YAML inside the
 * `<!-- loom METADATA -->` block. Every field of the reference CLI's schema is read with its type
 * (`loom/src/plan/schema/types.rs`); keys this schema does not name are kept (`.loose()`) and
 * reported by the validator. What each field does here: `field-support.ts`.
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

/** A bug-fix stage's regression test: a file that must exist and contain each `must_contain` string. */
export const RegressionTest = z
  .object({ file: z.string(), must_contain: z.array(z.string()).optional() })
  .loose();
export type RegressionTest = z.infer<typeof RegressionTest>;

/** Review dimensions an integration-verify session must cover (`require_all` defaults to true). */
export const CodeReviewConfig = z
  .object({ dimensions: z.array(z.string()).optional(), require_all: z.boolean().optional() })
  .loose();
export type CodeReviewConfig = z.infer<typeof CodeReviewConfig>;

/** Agent lanes a stage may delegate to, preferred first (the reference's closed set). */
export const IMPLEMENTERS = ["claude", "codex"] as const;
export const Implementer = z.enum(IMPLEMENTERS);
export type Implementer = z.infer<typeof Implementer>;

export const EXECUTION_MODES = ["single", "team"] as const;
export const ExecutionMode = z.enum(EXECUTION_MODES);
export type ExecutionMode = z.infer<typeof ExecutionMode>;

/** Commands whose outputs before and after a stage are compared for unintended changes. */
export const CHANGE_IMPACT_POLICIES = ["fail", "warn", "skip"] as const;
export const ChangeImpactConfig = z
  .object({
    baseline_command: z.string(),
    compare_command: z.string().optional(),
    failure_patterns: z.array(z.string()).optional(),
    policy: z.enum(CHANGE_IMPACT_POLICIES).optional(),
  })
  .loose();
export type ChangeImpactConfig = z.infer<typeof ChangeImpactConfig>;

/** The reference reads it as a u32. */
const MAX_U32 = 4_294_967_295;
export const AdjudicationConfig = z
  .object({ max_amendments_per_stage: z.number().int().min(0).max(MAX_U32).optional() })
  .loose();
export type AdjudicationConfig = z.infer<typeof AdjudicationConfig>;

/** loom's own publish flags (plan or stage; a stage's value wins): see action/src/publish/. */
const PublishFlags = {
  allow_workflow_changes: z.boolean().optional(),
  allow_agent_config_changes: z.boolean().optional(),
  allow_knowledge_edits: z.boolean().optional(),
};

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
    sandbox: SandboxConfig.optional(),
    model: z.string().optional(),
    reasoning_effort: z.enum(REASONING_EFFORTS).optional(),
    execution_mode: ExecutionMode.optional(),
    bug_fix: z.boolean().optional(),
    regression_test: RegressionTest.optional(),
    code_review: CodeReviewConfig.optional(),
    ultracode: z.boolean().optional(),
    implementers: z.array(Implementer).optional(),
    /** The reference reads it as a u64 (0 included). */
    subagent_timeout_secs: z.number().int().min(0).optional(),
    /** This stage's session spend cap in US dollars (`--max-budget-usd`); wins over the plan's. */
    max_budget_usd: z.number().positive().optional(),
    /** This stage's session turn cap (`--max-turns`); wins over the plan's. */
    max_turns: z.number().int().positive().optional(),
    ...PublishFlags,
  })
  .loose();
export type Stage = z.infer<typeof Stage>;

export const LoomMetadata = z
  .object({
    version: z.literal(1),
    stages: z.array(Stage),
    auto_merge: z.boolean().optional(),
    sandbox: SandboxConfig.optional(),
    change_impact: ChangeImpactConfig.optional(),
    adjudication: AdjudicationConfig.optional(),
    /** Every session's spend cap in US dollars, unless a stage sets its own. */
    max_budget_usd: z.number().positive().optional(),
    /** Every session's turn cap, unless a stage sets its own. */
    max_turns: z.number().int().positive().optional(),
    ...PublishFlags,
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
