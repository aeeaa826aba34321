/*
 * Every field of the reference CLI's plan schema, written down by hand from cosmix/loom at commit
 * 1c465307605e082e9ab0eafc660858531965781a (`git -C /work/.mirror/cosmix+loom/repo log -1`):
 * - loom/src/plan/schema/types.rs: `LoomConfig` (under `loom:`), the plan-level `SandboxConfig`,
 *   `ChangeImpactConfig`, `AdjudicationConfig`, `StageDefinition`, `CodeReviewConfig`;
 * - loom/src/models/stage/types.rs: `StageSandboxConfig`, `FilesystemConfig`, `NetworkConfig`,
 *   `LinuxConfig`, `TruthCheck` (an extended acceptance criterion, before_stage, after_stage),
 *   `WiringCheck`, `WiringTest`, `SuccessCriteria`, `DeadCodeCheck`, `RegressionTest`.
 * A field the reference adds later is added here; test/plan/reference-fields.test.ts then fails
 * until the registry (src/plan/field-support.ts) says what loom does with it.
 */
const SANDBOX = [
  "enabled",
  "auto_allow",
  "allow_unsandboxed_escape",
  "excluded_commands",
  "filesystem",
  "filesystem.deny_read",
  "filesystem.deny_write",
  "filesystem.allow_write",
  "network",
  "network.allowed_domains",
  "network.additional_domains",
  "network.allow_local_binding",
  "network.allow_unix_sockets",
  "network.allow_all_unix_sockets",
  "linux",
  "linux.enable_weaker_nested",
  "permission_mode",
];
const TRUTH_CHECK = [
  "command",
  "stdout_contains",
  "stdout_not_contains",
  "stderr_empty",
  "exit_code",
  "description",
];
const STAGE_DEFINITION = [
  "id",
  "name",
  "description",
  "dependencies",
  "parallel_group",
  "acceptance",
  ...TRUTH_CHECK.map((key) => `acceptance[].${key}`),
  "setup",
  "files",
  "auto_merge",
  "working_dir",
  "stage_type",
  "artifacts",
  "wiring",
  ...["source", "pattern", "description"].map((key) => `wiring[].${key}`),
  "wiring_tests",
  ...["name", "command", "success_criteria", "description"].map((key) => `wiring_tests[].${key}`),
  ...["exit_code", "stdout_contains", "stdout_not_contains", "stderr_contains", "stderr_empty"].map(
    (key) => `wiring_tests[].success_criteria.${key}`,
  ),
  "dead_code_check",
  ...["command", "fail_patterns", "ignore_patterns"].map((key) => `dead_code_check.${key}`),
  "before_stage",
  ...TRUTH_CHECK.map((key) => `before_stage[].${key}`),
  "after_stage",
  ...TRUTH_CHECK.map((key) => `after_stage[].${key}`),
  "context_budget",
  "sandbox",
  ...SANDBOX.map((key) => `sandbox.${key}`),
  "execution_mode",
  "bug_fix",
  "regression_test",
  "regression_test.file",
  "regression_test.must_contain",
  "model",
  "reasoning_effort",
  "code_review",
  "code_review.dimensions",
  "code_review.require_all",
  "ultracode",
  "implementers",
  "subagent_timeout_secs",
];
export const REFERENCE_FIELDS: readonly string[] = [
  "version",
  "auto_merge",
  "sandbox",
  ...SANDBOX.map((key) => `sandbox.${key}`),
  "change_impact",
  ...["baseline_command", "compare_command", "failure_patterns", "policy"].map(
    (key) => `change_impact.${key}`,
  ),
  "adjudication",
  "adjudication.max_amendments_per_stage",
  "stages",
  ...STAGE_DEFINITION.map((key) => `stages[].${key}`),
];

/** The stage's own `Option` fields in the reference's `StageDefinition`. */
export const OPTIONAL_STAGE_FIELDS: readonly string[] = [
  "description",
  "parallel_group",
  "auto_merge",
  "dead_code_check",
  "context_budget",
  "execution_mode",
  "bug_fix",
  "regression_test",
  "model",
  "reasoning_effort",
  "code_review",
  "subagent_timeout_secs",
];

/**
 * The reference's `Option` fields (an explicit `null` is read as absent), from the same files;
 * every other field refuses `null` there (a `Vec`, a `bool` or a struct with a default).
 */
export const NULLABLE_FIELDS: readonly string[] = [
  "auto_merge",
  "sandbox.permission_mode",
  "change_impact",
  "change_impact.compare_command",
  "adjudication",
  ...[
    ...OPTIONAL_STAGE_FIELDS,
    ...["acceptance", "before_stage", "after_stage"].flatMap((list) =>
      ["stderr_empty", "exit_code", "description"].map((key) => `${list}[].${key}`),
    ),
    "wiring_tests[].description",
    "wiring_tests[].success_criteria.exit_code",
    "wiring_tests[].success_criteria.stderr_empty",
    ...[
      "enabled",
      "auto_allow",
      "allow_unsandboxed_escape",
      "filesystem",
      "network",
      "linux",
      "permission_mode",
    ].map((key) => `sandbox.${key}`),
  ].map((key) => `stages[].${key}`),
];
