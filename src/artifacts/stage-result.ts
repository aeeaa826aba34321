import { z } from "zod";
import { EgressDenial } from "./egress-denial.ts";
import { LearningRef, RecordedLearning, RejectedLearning } from "../knowledge/learning.ts";
import { MAX_LEARNING_LINES, MAX_LEARNINGS_PER_SESSION } from "../knowledge/review-learnings.ts";
import { SESSION_KINDS } from "../stage/stage-status.ts";
import { StageDispute } from "./dispute-request.ts";

/**
 * `loom-result.json`: what one stage session did, written by the action and read by the app.
 * Every text in here is already redacted and bounded by the writer; readers still treat it as
 * untrusted data (never as instructions).
 */

/** How a session ended, decided from evidence (result message, commits, checks), never exit code alone. */
export const STAGE_OUTCOMES = [
  "completed",
  "completed-with-failures",
  "needs-handoff",
  "crashed",
  "hung",
  "timed-out",
  // The run was cancelled (GitHub signalled the step): the action stopped the session and wrote
  // its handoff in the few seconds GitHub grants before it kills the job.
  "cancelled",
] as const;
export const StageOutcome = z.enum(STAGE_OUTCOMES);
export type StageOutcome = z.infer<typeof StageOutcome>;

export const CHECK_KINDS = [
  "acceptance",
  "artifact",
  "wiring",
  "wiring_test",
  "dead_code",
  "before_stage",
  "after_stage",
  "setup",
  /** One review dimension of `code_review`: did the session's final report address it. */
  "code_review",
  /** The plan's `change_impact`: failure lines the stage's changes added to the compare output. */
  "change_impact",
  /** A bug-fix stage's `regression_test` file: there, not empty, holding each `must_contain`. */
  "regression_test",
] as const;
export const CheckKind = z.enum(CHECK_KINDS);
export type CheckKind = z.infer<typeof CheckKind>;

/** Longest output tail a check result carries (characters). */
export const OUTPUT_TAIL_MAX = 4000;

export const CheckResult = z.object({
  kind: CheckKind,
  /** What a person reads: the command, the artifact path, the wiring description. */
  name: z.string().min(1).max(1024),
  command: z.string().max(4096).optional(),
  passed: z.boolean(),
  /**
   * Passed, with a finding the plan only asks to be warned about (`change_impact` with `policy:
   * warn`, a review dimension left out under `require_all: false`); the output says what.
   */
  warned: z.boolean().optional(),
  exit_code: z.number().int().optional(),
  duration_ms: z.number().int().nonnegative(),
  /** The last part of stdout+stderr, or why the check failed; redacted. */
  output_tail: z.string().max(OUTPUT_TAIL_MAX),
  /** Files and lines of the checkout a failed check's output names (absent from older actions). */
  locations: z
    .array(
      z.object({
        path: z.string().min(1).max(1024),
        line: z.number().int().positive(),
        column: z.number().int().positive().optional(),
      }),
    )
    .max(10)
    .optional(),
});
export type CheckResult = z.infer<typeof CheckResult>;

export const CommitInfo = z.object({
  sha: z.string().regex(/^[0-9a-f]{40,64}$/),
  subject: z.string().max(1024),
});
export type CommitInfo = z.infer<typeof CommitInfo>;

export const TokenUsage = z.object({
  input: z.number().int().nonnegative(),
  output: z.number().int().nonnegative(),
  cache_read: z.number().int().nonnegative(),
  cache_creation: z.number().int().nonnegative(),
});
export type TokenUsage = z.infer<typeof TokenUsage>;

/**
 * Whether the session and the checks ran as a separate user, away from the runner's tokens
 * (`user`), or as the runner's own user (`none`, with the reason: a runner without root or
 * passwordless sudo, allowed by `session.require_isolation: false`).
 */
export const SessionIsolationRecord = z.discriminatedUnion("mode", [
  z.object({ mode: z.literal("user"), user: z.string().min(1).max(64) }),
  z.object({ mode: z.literal("none"), reason: z.string().max(1000) }),
]);
export type SessionIsolationRecord = z.infer<typeof SessionIsolationRecord>;

/**
 * The network sandbox of the session and its checks: `limited` (loom's egress proxy and an egress
 * rule for the session user held them to `allow`), or `advisory` (`.github/loom.yml` says
 * `session.sandbox: advisory` and this runner could not enforce it: `reason`). `blocked`: the
 * hosts the proxy refused, first refusal first; `more_blocked` counts refused hosts past the list.
 */
export const NetworkRecord = z.object({
  mode: z.enum(["limited", "advisory"]),
  allow: z.array(z.string().max(255)).max(500),
  reason: z.string().max(1000).optional(),
  notes: z.array(z.string().max(500)).max(100),
  blocked: z.array(EgressDenial).max(50),
  more_blocked: z.number().int().nonnegative(),
});
export type NetworkRecord = z.infer<typeof NetworkRecord>;

/**
 * How a continue session picked up the earlier one: `resumed` Claude Code's own session (its
 * `loom-session` state), or `handoff`: a fresh session given the earlier result, its handoff and
 * the instructions, with `reason` saying why it could not resume (state expired, missing, unusable).
 */
export const ContinuedFrom = z.object({
  mode: z.enum(["resumed", "handoff"]),
  from_run_id: z.number().int().positive(),
  reason: z.string().max(500).optional(),
});
export type ContinuedFrom = z.infer<typeof ContinuedFrom>;

/** At most this many learnings are named as given to one session. */
export const MAX_LEARNINGS_GIVEN = 20;

export const StageResult = z.object({
  version: z.literal(1),
  plan_id: z.string().min(1),
  stage_id: z.string().min(1),
  attempt: z.number().int().positive(),
  kind: z.enum(SESSION_KINDS),
  /** The dispatch key the app gave the run (plan blob SHA, stage, attempt), echoed back. */
  key: z.string().max(500).optional(),
  /** Claude Code's session id, when the session started. */
  session_id: z.string().max(200).optional(),
  /** The model the session ran, as Claude Code named it (absent from older actions). */
  model: z.string().max(200).optional(),
  outcome: StageOutcome,
  /** One line a person reads: why this outcome. */
  reason: z.string().max(1000),
  checks: z.array(CheckResult),
  commits: z.array(CommitInfo),
  /** The stage branch head after the runner's own commit (the bundle's tip). */
  head_sha: z.string().regex(/^[0-9a-f]{40,64}$/),
  turns: z.number().int().nonnegative(),
  tokens: TokenUsage,
  cost_usd: z.number().nonnegative(),
  duration_ms: z.number().int().nonnegative(),
  context_percent: z.number().min(0).max(100),
  /** Markdown handoff for the next (recovery) session, when the session wrote one. */
  handoff: z.string().max(100_000).optional(),
  /** `[DEVIATION Rule N: …]` markers found in the transcript. */
  deviations: z.array(z.string().max(2000)),
  /** Tools the session asked for and was refused. */
  permission_denials: z.array(z.string().max(2000)),
  /** For a continue session: whether it resumed the earlier session or got a handoff prompt. */
  continued: ContinuedFrom.optional(),
  /**
   * The acceptance criterion the session disputed (`dispute.json`) and why, when that criterion
   * failed: the stage then waits for a person to amend it or reject the dispute. Absent otherwise
   * (and from older actions, whose Apps ignore it).
   */
  dispute: StageDispute.optional(),
  /** How the session was kept from the runner's tokens; absent from older actions. */
  isolation: SessionIsolationRecord.optional(),
  /** The network sandbox, when the stage had one (a plan `sandbox` or `session.network`). */
  network: NetworkRecord.optional(),
  /**
   * What the session recorded in its learnings file, after validation, the write gate and
   * near-duplicate rejection. The publish job checks the accepted ones again and commits them to
   * `doc/loom/knowledge/learnings/`; the rejected ones are shown in the job summary. Absent when
   * the session was given no learnings file (merge sessions) or left none.
   */
  learnings: z
    .object({
      accepted: z.array(RecordedLearning).max(MAX_LEARNINGS_PER_SESSION),
      rejected: z.array(RejectedLearning).max(MAX_LEARNING_LINES),
    })
    .optional(),
  /**
   * The learnings the session's prompt carried, best first. The publish job records them with the
   * outcome (`doc/loom/knowledge/learnings/uses/`); absent from older actions.
   */
  learnings_given: z.array(LearningRef).max(MAX_LEARNINGS_GIVEN).optional(),
});
export type StageResult = z.infer<typeof StageResult>;
