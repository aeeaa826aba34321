import { z } from "zod";
import { parse as parseYaml, YAMLParseError } from "yaml";
import {
  DEFAULT_RUNNER_NOTICE_MS,
  DEFAULT_RUNNER_TIMEOUT_MS,
  DEFAULT_SETTINGS,
} from "../orchestrator/events.ts";
import type { Settings } from "../orchestrator/events.ts";
import { RetirePolicy } from "../knowledge/find-retired-learnings.ts";
import { describeDomainProblem } from "../plan/describe-domain-problem.ts";
import { PLAN_LIMITS } from "../plan/plan.ts";
import { DEFAULT_CAPS, NO_CAP } from "./default-caps.ts";

/** Plan files loom runs in one pull request unless `.github/loom.yml` says otherwise. */
export const DEFAULT_MAX_PLANS_PER_PULL = 10;

/** How a plan's `sandbox` is held: enforced (fail where it cannot be) or advisory. */
export const SANDBOX_MODES = ["enforced", "advisory"] as const;

/** Repository roles from least to most, as GitHub names them. */
export const ROLES = ["none", "read", "triage", "write", "maintain", "admin"] as const;
export const Role = z.enum(ROLES);
export type Role = z.infer<typeof Role>;

/**
 * A cap: a number, or `none` (no cap). Every refusal says both forms, so `0`, `false` or a typo of
 * `none` gets the same sentence.
 */
function capOrNone(what: string, number: (error: string) => z.ZodNumber) {
  const error = `${what}, or \`${NO_CAP}\` for none`;
  return z.union([number(error), z.literal(NO_CAP)], { error });
}

/**
 * `.github/loom.yml`, read from the default branch only. Every key is optional; unknown keys are
 * refused so a typo does not silently fall back to a default.
 */
export const LoomConfig = z
  .object({
    /**
     * Defaults from another repository's `.github/loom.yml` (`.github`, `owner/repo` or
     * `owner/repo:path.yml`), read by the App through Probot's config plugin (`merge-repo-config.ts`).
     */
    _extends: z.string().min(1).optional(),
    /** The stage workflow file in `.github/workflows/` that loom dispatches. */
    workflow: z
      .string()
      .regex(/^[\w.-]+\.ya?ml$/, "a file name in .github/workflows/, like loom.yml")
      .default("loom.yml"),
    max_parallel: z.number().int().min(1).max(100).default(DEFAULT_SETTINGS.maxParallel),
    retry: z
      .strictObject({
        max_attempts: z.number().int().min(1).max(10).default(DEFAULT_SETTINGS.maxAttempts),
        backoff_base_seconds: z
          .number()
          .int()
          .min(0)
          .max(3600)
          .default(DEFAULT_SETTINGS.backoffBaseMs / 1000),
        backoff_cap_seconds: z
          .number()
          .int()
          .min(0)
          .max(86_400)
          .default(DEFAULT_SETTINGS.backoffCapMs / 1000),
      })
      .default({
        max_attempts: DEFAULT_SETTINGS.maxAttempts,
        backoff_base_seconds: DEFAULT_SETTINGS.backoffBaseMs / 1000,
        backoff_cap_seconds: DEFAULT_SETTINGS.backoffCapMs / 1000,
      }),
    heartbeat_timeout_seconds: z
      .number()
      .int()
      .min(60)
      .max(86_400)
      .default(DEFAULT_SETTINGS.heartbeatTimeoutMs / 1000),
    /** Rename a running plan's file `IN_PROGRESS-PLAN-…` and a finished one's `DONE-PLAN-…` on the pull request's branch, as the reference CLI does. */
    rename_plans: z.boolean().default(true),
    /**
     * What a person's push that affects completed stages does: `ask` (default) lists them with a
     * "Re-run affected" button and `/loom rerun affected`; `affected` re-runs them at once, within
     * the budget.
     */
    rerun: z.enum(["ask", "affected"]).default("ask"),
    /**
     * What a plan may spend: no stage starts when the spend plus the forecast of the work ahead
     * would pass `plan_usd` (default `DEFAULT_CAPS.planBudgetUsd`; `none`: no budget). The forecast
     * takes each stage not done at `stage_estimate_usd`, else at its session cap, until a stage
     * completes; then at the plan's average per completed stage.
     */
    budget: z
      .strictObject({
        plan_usd: capOrNone("a positive number of US dollars up to 1000000", (error) =>
          z.number({ error }).positive({ error }).max(1_000_000, { error }),
        ).optional(),
        stage_estimate_usd: z
          .number({ error: "a positive number of US dollars" })
          .positive({ error: "a positive number of US dollars" })
          .max(1_000_000, { error: "at most 1000000" })
          .optional(),
      })
      .optional(),
    /** A run no runner picks up: the check run says so after `notice_minutes`; after `cancel_minutes` it is cancelled and dispatched once more. */
    runner_wait: z
      .strictObject({
        notice_minutes: z
          .number()
          .int()
          .min(1)
          .max(1440)
          .default(DEFAULT_RUNNER_NOTICE_MS / 60_000),
        cancel_minutes: z
          .number()
          .int()
          .min(1)
          .max(1440)
          .default(DEFAULT_RUNNER_TIMEOUT_MS / 60_000),
      })
      .default({
        notice_minutes: DEFAULT_RUNNER_NOTICE_MS / 60_000,
        cancel_minutes: DEFAULT_RUNNER_TIMEOUT_MS / 60_000,
      }),
    /** Plan files loom runs in one pull request; the rest are refused on their check run. */
    max_plans_per_pull: z.number().int().min(1).max(50).default(DEFAULT_MAX_PLANS_PER_PULL),
    /** Stages one plan may have (at most 500, the parser's own limit). */
    max_stages_per_plan: z.number().int().min(1).max(PLAN_LIMITS.maxStages).default(PLAN_LIMITS.maxStages),
    label_prefix: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,20}$/, "letters, digits, `_`, `.` or `-`, at most 20")
      .default("loom"),
    /**
     * Whether loom creates `<prefix>:skip:<stage>` and `<prefix>:block:<stage>` for every stage of
     * a plan, so they can be picked from the label menu (two requests per stage, and two
     * repository labels per stage id that stay). Off: only `<prefix>:hold` is created; per-stage
     * labels still work when someone creates them, and `/loom skip|block` does the same.
     */
    stage_labels: z.boolean().default(false),
    /** The least repository role whose commands, buttons and labels loom obeys. */
    minimum_role: z.enum(["write", "maintain", "admin"]).default("write"),
    /** Delete stage branches once the plan is done. */
    delete_branches: z.boolean().default(true),
    /** When the publish job retires a learning (moves it to `doc/loom/knowledge/learnings/retired/`). */
    learnings: RetirePolicy.optional(),
    /**
     * Caps on each stage session. Each is the default when a plan sets none AND the ceiling: a
     * plan or stage may ask for less, never more.
     */
    session: z
      .strictObject({
        /** Spend cap in US dollars (`--max-budget-usd`); `none`: no default cap (a plan may still set one). */
        max_budget_usd: capOrNone("a positive number of US dollars", (error) =>
          z.number({ error }).positive({ error }),
        ).optional(),
        /** Turn cap (`--max-turns`); `none`: no default cap (a plan may still set one). */
        max_turns: capOrNone("a positive whole number", (error) =>
          z.number({ error }).int({ error }).positive({ error }),
        ).optional(),
        /**
         * Run a stage only where the action can run its session and checks as a separate user
         * (default true). `false` lets a runner without root or passwordless sudo (a self-hosted
         * runner) run them as its own user, where they could read the runner's tokens.
         */
        require_isolation: z.boolean().optional(),
        /**
         * The network a stage session may reach (`allow`: host names, `*.example.com` for any
         * subdomain). Set, every session runs behind loom's egress proxy with this allowlist (and
         * the model provider's endpoints); a plan's `sandbox.network` may narrow it, never widen it.
         */
        network: z
          .strictObject({
            allow: z.array(
              z.string().refine((domain) => describeDomainProblem(domain) === null, {
                error: "a host name (letters, digits, `.`, `-`), or `*.example.com` for its subdomains",
              }),
            ),
          })
          .optional(),
        /**
         * `enforced` (default): a stage whose sandbox loom cannot enforce on its runner (no root or
         * sudo, no iptables) fails with the reason. `advisory`: it runs, its prompt listing the rules.
         */
        sandbox: z.enum(SANDBOX_MODES).optional(),
      })
      .optional(),
  })
  .strict();
export type LoomConfig = z.infer<typeof LoomConfig>;

export type ConfigProblem = { message: string; line: number | null };

export type LoomConfigResult =
  { ok: true; config: LoomConfig; ignored?: string[] } | { ok: false; problems: ConfigProblem[] };

/** How many rounds of unknown keys `ignoreUnknownKeys` takes off (one per nesting level). */
const MAX_UNKNOWN_KEY_ROUNDS = 8;

/**
 * Parses the file's text; `null` (no file) gives every default.
 *
 * `unknownKeys: "ignore"` is for the stage workflow's action, which may be older than the App
 * that validated the file (a caller pins a release; the App is upgraded on its own): a key this
 * version does not know is left out and named in `ignored` instead of failing the stage, and
 * every key it knows is checked as strictly as ever. Except under `session`: those keys bound the
 * model's process (caps, isolation, network), so one this version cannot honour fails the stage
 * (closed) rather than run it unbounded; a later loom puts any such setting there. The App refuses
 * unknown keys (a typo must not fall back to a default where a person reads it).
 */
export function parseLoomConfig(
  text: string | null,
  options: { unknownKeys?: "refuse" | "ignore" } = {},
): LoomConfigResult {
  let raw: unknown = {};
  if (text !== null) {
    try {
      raw = parseYaml(text, { maxAliasCount: 50 }) ?? {};
    } catch (error) {
      if (error instanceof YAMLParseError) {
        return { ok: false, problems: [{ message: error.message, line: error.linePos?.[0].line ?? null }] };
      }
      throw new Error("unexpected failure parsing .github/loom.yml", { cause: error });
    }
  }
  const ignored: string[] = [];
  let result = LoomConfig.safeParse(raw);
  for (
    let round = 0;
    options.unknownKeys === "ignore" && !result.success && round < MAX_UNKNOWN_KEY_ROUNDS;
    round++
  ) {
    const unknown = result.error.issues.flatMap((issue) =>
      issue.code === "unrecognized_keys" && issue.path[0] !== "session"
        ? issue.keys.map((key) => [...issue.path, key])
        : [],
    );
    if (unknown.length === 0) break;
    raw = withoutPaths(raw, unknown);
    ignored.push(...unknown.map((path) => path.join(".")));
    result = LoomConfig.safeParse(raw);
  }
  if (result.success) return { ok: true, config: result.data, ...(ignored.length > 0 ? { ignored } : {}) };
  return {
    ok: false,
    problems: result.error.issues.map((issue) => ({
      message: `${issue.path.join(".") || "(file)"}: ${issue.message}`,
      line: null,
    })),
  };
}

/** `value` without the keys at `paths` (plain objects copied along each path; the rest shared). */
function withoutPaths(value: unknown, paths: PropertyKey[][]): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const copy: Record<PropertyKey, unknown> = { ...(value as Record<PropertyKey, unknown>) };
  for (const [head, ...rest] of paths) {
    if (head === undefined || !(head in copy)) continue;
    if (rest.length === 0) delete copy[head];
    else copy[head] = withoutPaths(copy[head], [rest]);
  }
  return copy;
}

/** Whether stage sessions may run only as a separate user: `session.require_isolation`, default true. */
export function requiresIsolation(config: Pick<LoomConfig, "session"> | null): boolean {
  return config?.session?.require_isolation ?? true;
}

/** Whether a stage whose sandbox cannot be enforced fails (`session.sandbox`, default `enforced`). */
export function requiresSandbox(config: Pick<LoomConfig, "session"> | null): boolean {
  return (config?.session?.sandbox ?? "enforced") === "enforced";
}

/** The scheduling part of the config, as the orchestrator takes it. */
export function toSettings(config: LoomConfig): Settings {
  return {
    maxParallel: config.max_parallel,
    maxAttempts: config.retry.max_attempts,
    backoffBaseMs: config.retry.backoff_base_seconds * 1000,
    backoffCapMs: config.retry.backoff_cap_seconds * 1000,
    heartbeatTimeoutMs: config.heartbeat_timeout_seconds * 1000,
    runnerNoticeMs: config.runner_wait.notice_minutes * 60_000,
    runnerTimeoutMs: config.runner_wait.cancel_minutes * 60_000,
    ...toBudgetSettings(config.budget),
    renamePlans: config.rename_plans,
    ...(config.rerun === "affected" ? { rerunAffected: true } : {}),
    labelPrefix: config.label_prefix,
    stageLabels: config.stage_labels,
    deleteBranches: config.delete_branches,
  };
}

/** The plan's budget and where it comes from: the file's `plan_usd`, loom's default, or `none`. */
function toBudgetSettings(budget: LoomConfig["budget"]): Partial<Settings> {
  const planUsd = budget?.plan_usd;
  const estimate =
    budget?.stage_estimate_usd === undefined ? {} : { stageEstimateUsd: budget.stage_estimate_usd };
  if (planUsd === NO_CAP) return { planBudgetFrom: "opted out", ...estimate };
  return planUsd === undefined
    ? { planBudgetUsd: DEFAULT_CAPS.planBudgetUsd, planBudgetFrom: "default", ...estimate }
    : { planBudgetUsd: planUsd, planBudgetFrom: ".github/loom.yml", ...estimate };
}

/** True when `role` is at least `minimum`. */
export function meetsRole(role: Role, minimum: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(minimum);
}
