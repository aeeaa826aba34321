import type { FieldSupport } from "./field-support-type.ts";

/** Plan-level fields (directly under `loom:`); stage fields are in `stage-field-support.ts`. */

const NETWORK_SANDBOX = [
  "src/sandbox/resolve-network-policy.ts",
  "action/src/sandbox/apply-network-policy.ts",
  "action/src/sandbox/egress-rule.ts",
  "action/src/sandbox/start-egress-proxy.ts",
];
const FILESYSTEM_NOT_ENFORCED =
  "is not enforced yet: the session's prompt lists these paths as rules; the session runs as its own user, so the runner's own files and tokens are closed to it, but inside the checkout nothing stops a command that breaks them";

/**
 * The `sandbox` subtree under `prefix` (`sandbox` or `stages[].sandbox`). On a stage the settings
 * directly under `sandbox` are `Option`s in the reference (null is absent); under `loom:` only
 * `permission_mode` is. The network part is enforced (loom's egress proxy and an egress rule for
 * the session user); the rest is warned about with its own reason.
 */
export function listSandboxFields(prefix: string, onStage: boolean): FieldSupport[] {
  const nullable = (yes: boolean) => (yes ? { nullable: true as const } : {});
  const warned = (path: string, because: string, isNullable = onStage): FieldSupport => ({
    path: `${prefix}${path}`,
    origin: "reference",
    support: "warned",
    because,
    ...nullable(isNullable),
  });
  const applied = (path: string, does: string, isNullable = onStage): FieldSupport => ({
    path: `${prefix}${path}`,
    origin: "reference",
    support: "applied",
    does,
    code: NETWORK_SANDBOX,
    ...nullable(isNullable),
  });
  const unixSockets =
    "is not needed here: loom's egress rule limits network traffic only, so the session reaches the Unix sockets its user may open by file permissions";
  return [
    applied(
      "",
      "its network part is enforced: the session and its checks run behind loom's egress proxy, and an iptables rule lets the session user's traffic go nowhere else; a stage whose runner cannot enforce it fails, unless `.github/loom.yml` says `session.sandbox: advisory`; a stage's settings win over the plan's, as in the reference",
      false,
    ),
    applied(
      ".enabled",
      "`true` (the reference's default once a `sandbox` is written): the network is limited; `false`: it is not, unless `.github/loom.yml` sets `session.network.allow`, which a plan cannot lift",
    ),
    warned(
      ".auto_allow",
      "is ignored here: a stage session runs headless with loom's tool allowlist, so there is no prompt to answer",
    ),
    {
      path: `${prefix}.allow_unsandboxed_escape`,
      origin: "reference",
      support: "applied",
      does: "`false`: no command of the session runs outside the network rule",
      code: NETWORK_SANDBOX,
      unless: {
        written: "true",
        matches: (value) => value === true,
        because: "is not honoured: no command of the session may leave loom's network rule",
      },
      ...nullable(onStage),
    },
    warned(
      ".excluded_commands",
      "is not honoured: every command of the session stays under loom's network rule (a command that needs a host needs it in the allowlist)",
      false,
    ),
    warned(".filesystem", FILESYSTEM_NOT_ENFORCED),
    ...["deny_read", "deny_write", "allow_write"].map((key) =>
      warned(`.filesystem.${key}`, FILESYSTEM_NOT_ENFORCED, false),
    ),
    applied(".network", "the session's network allowlist (a stage's `network` replaces the plan's)"),
    applied(
      ".network.allowed_domains",
      "hosts the session and its checks may reach through loom's egress proxy (`*.example.com`: its subdomains); none: only the model provider; within `.github/loom.yml`'s `session.network.allow` when it is set (the plan narrows it, never widens it)",
      false,
    ),
    applied(".network.additional_domains", "allowed as `allowed_domains` are", false),
    applied(
      ".network.allow_local_binding",
      "`true`: the session user may reach loopback services (its own test servers, and any other on the runner); `false`: loopback is closed to it but for the proxy",
      false,
    ),
    warned(".network.allow_unix_sockets", unixSockets, false),
    warned(".network.allow_all_unix_sockets", unixSockets, false),
    warned(
      ".linux",
      "is ignored here: loom's network rule is an iptables rule for the session's own user, not a nested sandbox",
    ),
    warned(
      ".linux.enable_weaker_nested",
      "is ignored here: loom's network rule is an iptables rule for the session's own user, not a nested sandbox",
      false,
    ),
    warned(
      ".permission_mode",
      "is not applied: every session runs with `--permission-mode acceptEdits` and loom's explicit tool allowlist (`bypass-permissions` is never used)",
      true,
    ),
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

const CHANGE_IMPACT = [
  "action/src/checks/run-change-impact.ts",
  "src/stage/find-new-failures.ts",
  "action/src/git/find-fork-point.ts",
];
const CHANGE_IMPACT_DOES: Record<string, string> = {
  "": "each stage session (not a merge session) runs `baseline_command` before it starts and `compare_command` after it, from the stage's `working_dir`, as acceptance commands run; failure lines the compare output has and the baseline had not are the stage's impact, shown on its check run with the baseline's commit. The baseline is taken where the stage's branch left the merge point (a retry's or continue's checkout is switched there and back, so what earlier attempts broke counts; when that history was not fetched, on the attempt's start, and the check says so); what it changes in the checkout is undone before the session. A comparison that cannot be made (a command that cannot start or times out) is a warning, as the reference skips it",
  ".baseline_command": "runs before the session; its output (stdout and stderr) is the baseline",
  ".compare_command": "runs after the session (left out: `baseline_command` again)",
  ".failure_patterns":
    "regular expressions; an output line matching any is a failure line (left out: nothing is looked for, and the check says so)",
  ".policy":
    "`fail` (the default): a new failure line fails the stage, naming the pattern and the line; `warn`: the check passes with a warning and the lines; `skip`: nothing runs",
};
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
      support: "applied",
      does: CHANGE_IMPACT_DOES[key] ?? "",
      code: CHANGE_IMPACT,
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
