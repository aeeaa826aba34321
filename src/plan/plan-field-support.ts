import type { FieldSupport } from "./field-support.ts";

/** Plan-level fields (directly under `loom:`); stage fields are in `stage-field-support.ts`. */

const SANDBOX_NOT_ENFORCED =
  "is not enforced yet: the session's prompt lists these settings as rules, but nothing stops a command that breaks them (the session runs as its own user on the runner, its network open)";

/**
 * The `sandbox` subtree under `prefix` (`sandbox` or `stages[].sandbox`). On a stage the settings
 * directly under `sandbox` are `Option`s in the reference (null is absent); under `loom:` only
 * `permission_mode` is.
 */
export function listSandboxFields(prefix: string, onStage: boolean): FieldSupport[] {
  const warned = (path: string, nullable = onStage): FieldSupport => ({
    path: `${prefix}${path}`,
    origin: "reference",
    support: "warned",
    because: SANDBOX_NOT_ENFORCED,
    ...(nullable ? { nullable: true as const } : {}),
  });
  return [
    warned("", false),
    ...["enabled", "auto_allow", "allow_unsandboxed_escape"].map((key) => warned(`.${key}`)),
    warned(".excluded_commands", false),
    warned(".filesystem"),
    ...["deny_read", "deny_write", "allow_write"].map((key) => warned(`.filesystem.${key}`, false)),
    warned(".network"),
    ...[
      "allowed_domains",
      "additional_domains",
      "allow_local_binding",
      "allow_unix_sockets",
      "allow_all_unix_sockets",
    ].map((key) => warned(`.network.${key}`, false)),
    warned(".linux"),
    warned(".linux.enable_weaker_nested", false),
    warned(".permission_mode", true),
  ];
}

/** `auto_merge` (plan or stage; a stage's value wins): the merge gate of issue 33. */
export const AUTO_MERGE = {
  does: "`true` or left out: loom merges a passed stage into the pull request's branch, then its dependents start; `false`: the passed stage waits for a person's `/loom merge <stage>` or its Merge button (pinned to the commit its checks ran on), and its dependents wait with it; a stage's value wins over the plan's",
  code: [
    "app/engine/build-plan-spec.ts",
    "src/orchestrator/merge-by-person.ts",
    "src/orchestrator/handle-run.ts",
  ],
} as const;

const CHANGE_IMPACT_NOT_RUN =
  "is not run yet: no baseline or compare command runs and no failure pattern is looked for; a stage passes or fails on its own checks";
const ADJUDICATION = {
  does: "a session may dispute an acceptance criterion (its `dispute.json`, the reference's `dispute-criteria`); when that criterion fails, the stage waits for a person, who amends it for this run (`/loom amend <stage> <n> <command>`: the checks run again on the disputed commit, no model; the plan file is unchanged) or rejects the dispute (`/loom reject <stage>`); `max_amendments_per_stage` caps the amendments per stage (the reference's default, 3, when left out)",
  code: [
    "app/engine/build-plan-spec.ts",
    "src/orchestrator/adjudicate.ts",
    "action/src/adjudication/read-dispute.ts",
    "action/src/adjudication/run-check-only.ts",
  ],
} as const;

const SESSION_CAPS = ["src/config/resolve-session-caps.ts", "action/src/session/claude-args.ts"];
const PUBLISH_POLICY = [
  "action/src/publish/read-publish-policy.ts",
  "action/src/publish/check-new-commits.ts",
];

/** loom's publish flags, on the plan (`prefix` "") or a stage (`stages[].`). */
export function listPublishFields(prefix: string): FieldSupport[] {
  const flag = (key: string, does: string): FieldSupport => ({
    path: `${prefix}${key}`,
    origin: "loom",
    support: "applied",
    does: `${does} (a stage's value wins over the plan's; default false)`,
    code: PUBLISH_POLICY,
  });
  return [
    flag("allow_workflow_changes", "the publish job accepts the stage's changes under `.github/workflows/`"),
    flag(
      "allow_agent_config_changes",
      "the publish job accepts changes to agent configuration (`.claude/`, `CLAUDE.md`, `.mcp.json`, …)",
    ),
    flag("allow_knowledge_edits", "the publish job accepts edits of existing lines in `doc/loom/knowledge/`"),
  ];
}

const ignored = (path: string, because: string): FieldSupport => ({
  path,
  origin: "other",
  support: "warned",
  because: `is ignored here: ${because}`,
});

export const PLAN_FIELDS: readonly FieldSupport[] = [
  {
    path: "version",
    origin: "reference",
    support: "applied",
    does: "loom reads version 1 plans; another version is an error, as in the reference",
    code: ["src/plan/read-loom-document.ts"],
  },
  {
    path: "stages",
    origin: "reference",
    support: "applied",
    does: "each stage is a branch, a check run and a session (fields below)",
    code: ["src/plan/read-loom-document.ts", "src/orchestrator/apply-plan.ts"],
  },
  { path: "auto_merge", origin: "reference", nullable: true, support: "applied", ...AUTO_MERGE },
  ...listSandboxFields("sandbox", false),
  ...["", ".baseline_command", ".compare_command", ".failure_patterns", ".policy"].map(
    (key): FieldSupport => ({
      path: `change_impact${key}`,
      origin: "reference",
      ...(key === "" || key === ".compare_command" ? { nullable: true as const } : {}),
      support: "warned",
      because: CHANGE_IMPACT_NOT_RUN,
    }),
  ),
  { path: "adjudication", origin: "reference", nullable: true, support: "applied", ...ADJUDICATION },
  {
    path: "adjudication.max_amendments_per_stage",
    origin: "reference",
    support: "applied",
    does: "how many `/loom amend` one stage takes in this run of the plan (3, the reference's default, when left out; 0: disputes can only be rejected); past it, `/loom amend` is refused with the reason",
    code: ["app/engine/build-plan-spec.ts", "src/orchestrator/adjudicate.ts"],
  },
  {
    path: "max_budget_usd",
    origin: "loom",
    support: "applied",
    does: "every session's spend cap (`--max-budget-usd`) unless a stage sets its own; `.github/loom.yml` may lower it",
    code: SESSION_CAPS,
  },
  {
    path: "max_turns",
    origin: "loom",
    support: "applied",
    does: "every session's turn cap (`--max-turns`) unless a stage sets its own; `.github/loom.yml` may lower it",
    code: SESSION_CAPS,
  },
  ...listPublishFields(""),
  ignored("context_ceiling_tokens", "use a stage's `context_budget` (percent)"),
  ignored(
    "subagent_ceiling_tokens",
    "sessions are bounded by `context_budget`, `max_turns` and `max_budget_usd`",
  ),
  ignored("ratchet_files", "loom keeps no ratchet files"),
  ignored("terminal_backend", "no terminal windows are opened on GitHub"),
];
