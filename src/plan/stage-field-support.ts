import type { FieldException, FieldOrigin, FieldSupport } from "./field-support-type.ts";
import { AUTO_MERGE, listPublishFields, listSandboxFields } from "./plan-field-support.ts";

/** Stage fields (`stages[].…`); plan-level ones are in `plan-field-support.ts`. */

const CHECKS = ["action/src/checks/run-checks.ts", "action/src/checks/run-command-check.ts"];
const FILE_CHECKS = ["action/src/checks/check-files.ts"];
const SESSION = ["action/src/stage/run-session-safely.ts", "action/src/session/claude-args.ts"];
const SESSION_CAPS = ["src/config/resolve-session-caps.ts", "action/src/session/claude-args.ts"];
const RULES = ["src/plan/check-reference-rules.ts"];

type Extra = { nullable?: true; origin?: FieldOrigin; unless?: FieldException };

const applied = (path: string, does: string, code: readonly string[], extra: Extra = {}): FieldSupport => ({
  path: `stages[].${path}`,
  origin: "reference",
  support: "applied",
  does,
  code,
  ...extra,
});

const warned = (path: string, because: string, nullable = false): FieldSupport => ({
  path: `stages[].${path}`,
  origin: "reference",
  support: "warned",
  because,
  ...(nullable ? { nullable: true as const } : {}),
});

const ignored = (key: string, because: string): FieldSupport => ({
  path: `stages[].${key}`,
  origin: "other",
  support: "warned",
  because: `is ignored here: ${because}`,
});

/** The fields of an acceptance check or a before/after truth check, under `list[]`. */
function listCommandCheckFields(list: string, when: string): FieldSupport[] {
  const part = (key: string, does: string, nullable = false): FieldSupport =>
    applied(`${list}[].${key}`, does, CHECKS, nullable ? { nullable: true } : {});
  return [
    part("command", `runs ${when} from \`working_dir\` as a check on the stage's check run`),
    part("stdout_contains", "each string must appear in the command's output"),
    part("stdout_not_contains", "no string may appear in the command's output"),
    part("stderr_empty", "`true`: the command's error output must be empty", true),
    part("exit_code", "the exit code the check expects (default 0)", true),
    part("description", "the check's name on the check run", true),
    applied(`${list}[].timeout_secs`, "the check's time limit", CHECKS, { origin: "loom" }),
  ];
}

const REGRESSION = ["action/src/checks/check-files.ts", "src/signal/goal-backward-section.ts"];
const REVIEW = [
  "src/signal/review-section.ts",
  "src/review/review-report.ts",
  "action/src/checks/check-code-review.ts",
];

export const STAGE_FIELDS: readonly FieldSupport[] = [
  applied("id", "the stage's branch, check run and commands name it", ["src/plan/check-stage-ids.ts"]),
  applied("name", "the stage's title on its check run and in the prompt", ["src/signal/dynamic-section.ts"]),
  applied("description", "the session's assignment", ["src/signal/dynamic-section.ts"], { nullable: true }),
  applied("dependencies", "the stage starts only after each dependency passed and was merged", [
    "src/graph/ready-stages.ts",
  ]),
  applied(
    "parallel_group",
    "a label, as in the reference: stages run side by side whenever their dependencies allow (the reference's scheduler also reads only dependencies)",
    ["src/graph/ready-stages.ts"],
    { nullable: true },
  ),
  applied("acceptance", "each criterion runs after the session; one that fails fails the stage", CHECKS),
  ...listCommandCheckFields("acceptance", "after the session"),
  applied(
    "setup",
    "as in the reference, each acceptance command runs after the setup commands in one shell (`setup && command`: what they set with `cd`, `export` or `source` reaches it); they also run once on their own first, as a check that names the command that failed, and a failure fails the stage without running the acceptance commands. To prepare the runner before the session (install a toolchain), use the stage workflow's `setup` input",
    [...CHECKS, "action/src/checks/build-setup-script.ts"],
  ),
  applied(
    "files",
    "listed to the session as the files it owns; overlapping files of parallel stages are warned about",
    ["src/signal/dynamic-section.ts", "src/plan/check-plan-warnings.ts"],
  ),
  applied("auto_merge", AUTO_MERGE.does, AUTO_MERGE.code, { nullable: true }),
  applied("working_dir", "the checks run from there (default `.`)", CHECKS),
  applied(
    "stage_type",
    "the session's prompt follows the type (detected from the id or name when left out)",
    ["src/plan/detect-stage-type.ts", "src/signal/stable-prefix.ts"],
  ),
  applied("artifacts", "each file must exist and not be a stub after the session", FILE_CHECKS),
  applied("wiring", "each pattern must match in its source file after the session", FILE_CHECKS),
  applied("wiring[].source", "the file searched, relative to `working_dir`", FILE_CHECKS),
  applied("wiring[].pattern", "the regex searched for (Rust syntax; `(?i)` flags are read)", FILE_CHECKS),
  applied("wiring[].description", "the check's name on the check run", FILE_CHECKS),
  applied("wiring[].literal", "`true`: the pattern is plain text", FILE_CHECKS, { origin: "loom" }),
  applied("wiring_tests", "each command runs after the session and must meet its success criteria", CHECKS),
  applied("wiring_tests[].name", "the check's name on the check run", CHECKS),
  applied("wiring_tests[].command", "runs from `working_dir`", CHECKS),
  applied("wiring_tests[].description", "shown with the check", CHECKS, { nullable: true }),
  applied("wiring_tests[].success_criteria", "what the command must show (default: exit code 0)", CHECKS),
  applied("wiring_tests[].success_criteria.exit_code", "the expected exit code", CHECKS, { nullable: true }),
  ...(
    [
      ["stdout_contains", "each string must appear in its output"],
      ["stdout_not_contains", "no string may appear in its output"],
      ["stderr_contains", "each string must appear in its error output"],
    ] as const
  ).map(([key, does]) => applied(`wiring_tests[].success_criteria.${key}`, does, CHECKS)),
  applied("wiring_tests[].success_criteria.stderr_empty", "`true`: no error output", CHECKS, {
    nullable: true,
  }),
  applied(
    "dead_code_check",
    "the command runs after the session; a fail pattern in its output fails it",
    ["action/src/checks/run-dead-code-check.ts"],
    { nullable: true },
  ),
  ...["command", "fail_patterns", "ignore_patterns"].map((key) =>
    applied(`dead_code_check.${key}`, "as in the reference", ["action/src/checks/run-dead-code-check.ts"]),
  ),
  applied("before_stage", "each truth check runs before the session and must hold", CHECKS),
  ...listCommandCheckFields("before_stage", "before the session"),
  applied("after_stage", "each truth check runs after the session and must hold", CHECKS),
  ...listCommandCheckFields("after_stage", "after the session"),
  applied(
    "context_budget",
    "the session ends with a handoff when its context reaches this percent of the window (default 65), and a recovery session continues",
    [...SESSION, "action/src/session/run-session.ts"],
    { nullable: true },
  ),
  ...listSandboxFields("stages[].sandbox", true),
  applied("execution_mode", "`single`: one Claude Code session runs the stage", SESSION, {
    nullable: true,
    unless: {
      written: "team",
      matches: (value) => value === "team",
      because:
        "is a hint loom does not act on: the stage runs as one Claude Code session (the reference does not act on it either)",
    },
  }),
  applied(
    "bug_fix",
    "checked as in the reference: `bug_fix: true` needs a `regression_test`, and a `regression_test` needs `bug_fix: true`",
    RULES,
    { nullable: true },
  ),
  applied(
    "regression_test",
    "checked after the session like the other goal-backward checks, and listed to the session: the file must exist, hold content and contain each `must_contain` string; otherwise the stage fails, naming what is missing",
    REGRESSION,
    { nullable: true },
  ),
  applied("regression_test.file", "relative to `working_dir`; inside the checkout", REGRESSION),
  applied(
    "regression_test.must_contain",
    "each string must appear in the file as written (not a pattern)",
    REGRESSION,
  ),
  applied("model", "the session's `--model`", SESSION, { nullable: true }),
  applied("reasoning_effort", "the session's `--effort` (models without effort levels ignore it)", SESSION, {
    nullable: true,
  }),
  applied(
    "code_review",
    "the session is asked to end its final message with a `## Code Review` report covering each dimension; loom reads it back and shows each dimension's findings on the check run (not asked of merge sessions)",
    REVIEW,
    { nullable: true },
  ),
  applied(
    "code_review.dimensions",
    "each is a check of its own: addressed with findings in the session's report, or not",
    REVIEW,
  ),
  applied(
    "code_review.require_all",
    "`true` (the default): a dimension the report does not address fails the stage, naming it; `false`: it is shown as a warning",
    REVIEW,
  ),
  applied("ultracode", "`false` (the default): one session without Workflow orchestration", SESSION, {
    unless: {
      written: "true",
      matches: (value) => value === true,
      because:
        "is ignored here: a stage runs as one headless Claude Code session, without ultracode's Workflow orchestration",
    },
  }),
  applied(
    "implementers",
    "`[claude]` (the default): the session delegates only to Claude sub-agents",
    SESSION,
    {
      unless: {
        written: "a list naming codex",
        matches: (value) => Array.isArray(value) && value.includes("codex"),
        because:
          "is ignored here: each stage runs one Claude Code session on GitHub Actions, which has no codex lane; the work stays with Claude",
      },
    },
  ),
  warned(
    "subagent_timeout_secs",
    "is not used yet: a session without output for the action's `silence_timeout_minutes` (default 15) is stopped as hung, whatever this says (the reference only reports a silent session)",
    true,
  ),
  applied(
    "max_budget_usd",
    "this stage's session spend cap (`--max-budget-usd`), over the plan's",
    SESSION_CAPS,
    {
      origin: "loom",
    },
  ),
  applied("max_turns", "this stage's session turn cap (`--max-turns`), over the plan's", SESSION_CAPS, {
    origin: "loom",
  }),
  ...listPublishFields("stages[]."),
  ignored("execution_backend", "stages run on GitHub Actions runners"),
  ignored("terminal_backend", "no terminal windows are opened on GitHub"),
  ignored("context_ceiling_tokens", "use `context_budget` (percent) to bound a session's context"),
  ...["plan_overview", "skills", "contracts", "harness", "reachable"].map((key) =>
    ignored(key, "loom does not read it"),
  ),
];
