import type { CallerVerdict } from "../caller/caller-verdict.ts";
import type { CapsInForce } from "../config/caps-in-force.ts";
import type { SessionKind } from "../stage/stage-status.ts";
import type { SessionReport } from "./session-report.ts";

/**
 * Facts the app feeds the orchestrator. Every event carries its time (`at`, ms since epoch):
 * the core never reads a clock. The app authorizes senders before an event gets here.
 */

/** The part of a plan the orchestrator schedules on. Built from a parsed `Plan` by the app. */
export type PlanSpec = {
  id: string;
  name: string;
  path: string;
  /** Blob SHA of the plan file: part of every effect key, so an edited plan gets fresh keys. */
  blobSha: string;
  stages: StageSpec[];
  /** Warnings of the valid plan (overlapping files, vague tasks, …), at most 50, shown at their lines. */
  warnings?: PlanWarning[];
  /** The plan's `auto_merge` (absent: not written); a stage's own value wins (`isMergedByPerson`). */
  autoMerge?: boolean;
  /**
   * The plan's `adjudication.max_amendments_per_stage` (absent: not written; the reference's
   * default, 3, applies): how many `/loom amend` one stage takes in a run.
   */
  maxAmendmentsPerStage?: number;
  /**
   * The caps a stage session runs with when its stage sets none, as the App resolves them (the
   * plan, `.github/loom.yml`, loom's default): the forecast's and the plan check run's. Absent in
   * plans stored before defaults existed.
   */
  caps?: CapsInForce;
};

export type PlanWarning = { message: string; line: number; column: number; stage?: string };

export type StageSpec = {
  id: string;
  name: string;
  dependencies: string[];
  stageType: "standard" | "knowledge" | "integration-verify" | "knowledge-distill";
  /** The stage's `auto_merge` (absent: not written). False: a person merges the passed stage. */
  autoMerge?: boolean;
  /** How many acceptance criteria it has (absent when none, and in older states): what `/loom amend` numbers. */
  acceptanceCount?: number;
  /** This stage's caps, only where they differ from the plan's `caps`. */
  caps?: CapsInForce;
  /**
   * The stage's `files` globs (absent: none written): what a change must touch for the stage to
   * be affected by it (see `findAffectingPath`).
   */
  files?: string[];
  /**
   * A digest of the stage's whole definition in the plan file (every field): a plan edit that
   * changes it makes a completed stage affected. Absent in plans stored before it existed.
   */
  definition?: string;
};

/** Settings from `.github/loom.yml` (default branch) that change scheduling. */
export type Settings = {
  maxParallel: number;
  maxAttempts: number;
  backoffBaseMs: number;
  backoffCapMs: number;
  heartbeatTimeoutMs: number;
  /** Prefix of loom's labels (`<prefix>:skip:<stage>` …); `loom` when absent. */
  labelPrefix?: string;
  /** Create every stage's skip and block labels (`stage_labels`); only the hold label when absent. */
  stageLabels?: boolean;
  /** Delete the stage branches once every stage is merged or skipped (`delete_branches`); off when absent. */
  deleteBranches?: boolean;
  /**
   * Whether a running run's heartbeats can be read while it runs (absent: yes). Not on GitHub
   * Enterprise Server: its artifact API v3 shows a run's artifacts only once the run has completed,
   * so silence there says nothing and a running run is never cancelled as hung (the job's silence
   * watchdog and `timeout-minutes` stop a stalled session). Set by the app from where it runs.
   */
  liveHeartbeats?: boolean;
  /** Rename the plan file `IN_PROGRESS-` / `DONE-` on the pull request's branch (`rename_plans`); off when absent. */
  renamePlans?: boolean;
  /** `rerun: affected`: a push's affected stages run again without a person asking (within the budget). */
  rerunAffected?: boolean;
  /**
   * The plan's budget in US dollars (`budget.plan_usd`): a stage is not dispatched when the spend
   * plus the forecast of the stages ahead of it would pass it. None when absent.
   */
  planBudgetUsd?: number;
  /**
   * Where `planBudgetUsd` comes from, for the plan's check run: loom's default, the file, or
   * `opted out` (`budget.plan_usd: none`: no budget). Absent in plans stored before defaults.
   */
  planBudgetFrom?: "default" | ".github/loom.yml" | "opted out";
  /** `budget.stage_estimate_usd`: what the forecast takes a stage to cost before any completed. */
  stageEstimateUsd?: number;
  /** A queued run's check run says it waits for a runner after this long (default 5 min). */
  runnerNoticeMs?: number;
  /** A queued run is cancelled and dispatched once more after this long (default 60 min). */
  runnerTimeoutMs?: number;
  /**
   * What loom made of the caller workflow on the default branch when the plan started (or after a
   * push there changed it): whether to create a stage branch before its first run, or dispatch nothing.
   * Absent in plans started before loom read the caller: served as the 0.4 contract says.
   */
  caller?: CallerVerdict;
};

/** After this long queued, a run's check run says it waits for a runner (`runner_wait.notice_minutes`). */
export const DEFAULT_RUNNER_NOTICE_MS = 5 * 60_000;
/** After this long queued, the run is cancelled and dispatched once more (`runner_wait.cancel_minutes`). */
export const DEFAULT_RUNNER_TIMEOUT_MS = 60 * 60_000;

export const DEFAULT_SETTINGS: Settings = {
  maxParallel: 4,
  maxAttempts: 3,
  backoffBaseMs: 30_000,
  backoffCapMs: 300_000,
  heartbeatTimeoutMs: 300_000,
};

/** How a run ended, decided by the app from the run's conclusion and its `loom-result` artifact. */
export const RUN_OUTCOMES = [
  "completed",
  "completed-with-failures",
  "needs-handoff",
  "crashed",
  "hung",
  "timed-out",
  "cancelled",
] as const;
export type RunOutcome = (typeof RUN_OUTCOMES)[number];

/** `branch-moved`: the stage branch is no longer the commit its checks ran on; nothing was merged. */
export const MERGE_OUTCOMES = ["merged", "nothing-to-merge", "conflict", "error", "branch-moved"] as const;
export type MergeOutcome = (typeof MERGE_OUTCOMES)[number];

export const COMMAND_NAMES = [
  "retry",
  "skip",
  "block",
  "unblock",
  "cancel",
  "approve",
  "status",
  "help",
  "budget",
  "merge",
  "continue",
  "amend",
  "reject",
  "rerun",
] as const;
export type CommandName = (typeof COMMAND_NAMES)[number];

/** Where a command came from, so replies go back to the same place. */
export type CommandSource =
  | { kind: "comment"; commentId: number }
  | { kind: "check-run-button"; checkRunId: number }
  | { kind: "check-run-rerequest"; checkRunId: number }
  /** "Re-run all checks" / "Re-run failed checks" on the pull request: the whole check suite. */
  | { kind: "check-suite-rerequest"; checkSuiteId: number };

/** Where a fork plan comes from: `pull_request.head.repo.full_name`, null once the fork was deleted. */
export type ForkInfo = { repo: string | null };

export type Heartbeat = {
  timestamp: number;
  contextPercent: number;
  lastTool: string | null;
  activity: string | null;
  turns: number;
  costUsd: number;
};

export type OrchestratorEvent =
  | {
      type: "plan.opened";
      at: number;
      plan: PlanSpec;
      settings: Settings;
      pr: { number: number; headRef: string; headSha: string; baseRef: string; headAt?: number };
      /** False for forks and authors without write access: nothing runs until approved. */
      trusted: boolean;
      /** Set when the pull request comes from a fork (`repo` null: the fork was deleted). */
      fork?: ForkInfo;
      labels: string[];
      /**
       * The pull request holds other plans too: the stages' check runs carry the plan id in their
       * names (`loom: <plan-id> / <stage-id>`), so plans sharing stage ids stay apart.
       */
      sharedPull?: boolean;
    }
  | {
      type: "plan.changed";
      at: number;
      plan: PlanSpec;
      /**
       * The change came in with a commit loom made (a stage's merge), not a person's push: the plan
       * stops trusting its author and waits for a person's approval of the head.
       */
      untrusted?: boolean;
    }
  | { type: "plan.closed"; at: number; merged: boolean }
  /** The caller workflow on the default branch changed (a push there): how loom serves it now. */
  | { type: "caller.read"; at: number; caller: CallerVerdict }
  | {
      /**
       * The pull request's head moved to `headSha` from `before` (the push's own `before`; null when
       * unknown, e.g. read back from the API). `pushedAt`: GitHub's time of the push (ms), when known.
       * Whether the push is loom's own is decided by the reducer from the merge SHAs loom produced.
       */
      type: "head.moved";
      at: number;
      headSha: string;
      before: string | null;
      pushedAt?: number;
      /** The pull request's fork as the push's payload names it (absent: not a fork). */
      fork?: ForkInfo;
      /**
       * A person's push (not loom's own commit): the paths it changed against the head loom knew
       * (null: too many to list). Absent when the app did not look (no stage is merged yet, loom's
       * own push, a fork plan): then no completed stage is affected.
       */
      changedPaths?: string[] | null;
    }
  | { type: "run.dispatched"; at: number; stageId: string; attempt: number; runId: number }
  | { type: "run.started"; at: number; stageId: string; attempt: number; runId: number }
  | { type: "heartbeat.seen"; at: number; stageId: string; attempt: number; heartbeat: Heartbeat }
  | {
      type: "run.finished";
      at: number;
      stageId: string;
      attempt: number;
      runId: number;
      outcome: RunOutcome;
      /** One line a person reads on the check run: why it ended this way. */
      detail: string;
      /**
       * The stage branch commit the run's checks ran on, as the run left it (its publish job's
       * `pushed_sha`, else the result's `head_sha`): what a completed stage may merge.
       */
      headSha?: string;
      /** What the session reported in its `loom-result`: cost, checks, deviations, learnings. */
      report?: SessionReport;
    }
  | {
      type: "merge.finished";
      at: number;
      stageId: string;
      outcome: MergeOutcome;
      sha?: string;
      /**
       * The merge commit's first parent: the merge point's head GitHub merged onto. When it is the
       * head loom knows, the head moves to `sha` at once (the push's webhook then changes nothing).
       */
      parent?: string;
      /**
       * GitHub's answer listed every file the merge changed against `parent` and none is a plan
       * file: with the head moved to `sha`, the pull request's plan files are the ones loom knows.
       */
      plansUntouched?: boolean;
      /** The merge commit's tree, from GitHub's answer. */
      tree?: string;
      /**
       * Every path the merge changed against `parent`, when GitHub's answer listed all of them
       * (absent: not known). What a re-run's merge changed decides which dependents re-run.
       */
      changedPaths?: string[];
      /** `branch-moved` because the stage branch is gone (deleted), not moved. */
      branchGone?: true;
      detail: string;
    }
  | {
      /**
       * The pull request's head `headSha` no longer contains `sha`, the commit that made stage
       * `stageId` merged: a push rewrote the branch's history (a force-push). The app finds it by
       * comparing commits when the head moves by a push that is not loom's own merge.
       */
      type: "merge.lost";
      at: number;
      stageId: string;
      headSha: string;
      sha: string;
    }
  | {
      type: "command.received";
      at: number;
      command: CommandName;
      /**
       * The stage. A `retry` without one (only from a check suite's re-run, never parsed from a
       * comment) re-runs every stage that failed (see `retryFailedStages`).
       */
      stageId?: string;
      sender: string;
      source: CommandSource;
      /**
       * For `approve`: the SHA the approver named (the check run's `head_sha` for the button, the
       * argument of `/loom approve <sha>`: full or a prefix of at least 7 hex digits). For `merge`:
       * the stage commit the person merges (the Merge button's, `/loom merge <stage> <sha>`).
       */
      sha?: string;
      /** For `approve` and `merge` by comment: when the comment was written (GitHub's `created_at`, ms). */
      writtenAt?: number;
      /** For `budget`: the US dollars added to the plan's budget (`/loom budget +5`). */
      amountUsd?: number;
      /**
       * For `continue`: the sender's instructions, from their own comment (see `parseCommands`),
       * bounded by `MAX_CONTINUE_INSTRUCTIONS`. The app has checked the sender's permission.
       */
      instructions?: string;
      /** For `amend`: the criterion's number as people read it (1-based). */
      criterion?: number;
      /** For `amend`: the criterion's new command, from the sender's own comment. */
      amendedCommand?: string;
      /** For `retry` of a completed stage: `--only`, its dependents are not re-run whatever it changes. */
      only?: true;
    }
  /**
   * Someone without the permission a command needs commented or pressed a button. loom answers
   * with a 👎 each time but writes the reason at most once per person and pull request an hour:
   * refused comments cannot make loom post without bound.
   */
  | { type: "command.refused"; at: number; sender: string; source: CommandSource; reason: string }
  | {
      type: "labels.changed";
      at: number;
      labels: string[];
      /** Labels set by someone not allowed to steer loom, kept out of `labels` (see `resolveLabels`). */
      ignored?: string[];
    }
  | {
      /** The app created a check run (`stageId` null: the plan's) on `headSha`. */
      type: "checkRun.created";
      at: number;
      stageId: string | null;
      headSha: string;
      checkRunId: number;
    }
  | { type: "tick"; at: number }
  /** loom renamed the plan file on the pull request's branch (`path`) in commit `sha` on `parent`: the new head. */
  | { type: "planFile.renamed"; at: number; path: string; sha: string; parent: string; tree?: string }
  /** loom gave up renaming the plan file (`reason` says why); the plan goes on without the rename. */
  | { type: "planFile.renameFailed"; at: number; reason: string }
  /**
   * The app brought head `sha` into a fork plan's result branch (`syncTarget`): `synced` (merged,
   * or already there), or not (`conflict`, `error`) with the reason in `detail`.
   */
  | {
      type: "target.synced";
      at: number;
      sha: string;
      outcome: "synced" | "conflict" | "error";
      detail: string;
    }
  /** The app dealt with one of the plan's labels (`ensureLabel`): it exists, or could not be made. */
  | { type: "label.ensured"; at: number; name: string };

export type OrchestratorEventType = OrchestratorEvent["type"];
export type { SessionKind };
