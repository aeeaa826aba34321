import type { SessionKind, SessionStatus, StageStatus } from "../stage/stage-status.ts";
import type { Heartbeat, PlanSpec, RunOutcome, Settings } from "./events.ts";
import type { ForecastBasis } from "./forecast-basis.ts";
import type { SessionReport } from "./session-report.ts";

/** Why a stage stands where it stands, for people reading the status. */
export type StageNote = { at: number; text: string };

/**
 * A person's `/loom continue <stage> <instructions>`: `instructions` are theirs (redacted, at most
 * `MAX_CONTINUE_INSTRUCTIONS` characters), `by` their login (write access checked by the app),
 * `fromRunId` the run whose Claude Code session is resumed (attempt `fromAttempt`).
 */
export type Continuation = {
  instructions: string;
  by: string;
  at: number;
  fromRunId: number;
  fromAttempt: number;
};

/**
 * The acceptance criterion a session disputed (its `dispute.json`), while the stage waits in
 * `needs-human-review` for a person to amend it (`/loom amend`) or reject the dispute
 * (`/loom reject`): `criterionIndex` is 0-based (people read it 1-based), `criterion` the command
 * as the plan writes it, `reason` the session's (redacted by the action), `since` when the wait
 * began (a `/loom amend` written before cannot be about it), `attempt` the disputing attempt.
 */
export type Dispute = {
  criterionIndex: number;
  criterion: string;
  reason: string;
  since: number;
  attempt: number;
};

/**
 * A person's `/loom amend <stage> <n> <command>`: criterion `criterionIndex` (0-based) is `command`
 * for this run of the plan (the plan file is not changed), applied to the checks of `sha`.
 */
export type StageAmendment = {
  criterionIndex: number;
  /** The criterion as the plan wrote it (what the amendment replaces), for the record. */
  was: string;
  command: string;
  by: string;
  at: number;
  sha: string;
};

export type Session = {
  attempt: number;
  kind: SessionKind;
  status: SessionStatus;
  runId: number | null;
  dispatchedAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  outcome: RunOutcome | null;
  lastHeartbeat: Heartbeat | null;
  lastSeenAt: number;
  detail: string | null;
  /** What the finished session reported (cost, checks, deviations, learnings), when it left a result. */
  report?: SessionReport;
  /** Its run waited past `runner_wait.notice_minutes` without a runner (the check run says so). */
  runnerWaitNoticed?: boolean;
  /** Cancelled because no runner picked its run up within `runner_wait.cancel_minutes`. */
  neverStarted?: boolean;
  /** For a `continue` session: the person's instructions it carries. */
  continuation?: Continuation;
  /** For the attempts of a re-run of a completed stage: why it runs again (`Rerun.why`). */
  rerunWhy?: string;
};

/**
 * A completed stage running again: `why` (a person's retry, a dependency's re-run that changed a
 * path it builds on), `cascade`: when its new merge is done, its dependents whose `files` (or
 * touched paths) the merge changed run again too (false for `/loom retry <stage> --only`).
 * `fromHead`: its next dispatch moves the stage branch to the merge point's head first.
 */
export type Rerun = { why: string; at: number; cascade: boolean; fromHead?: true };

export type StageState = {
  id: string;
  name: string;
  dependencies: string[];
  stageType: PlanSpec["stages"][number]["stageType"];
  status: StageStatus;
  merged: boolean;
  /** Attempts dispatched so far (stage + recovery sessions; merge sessions are not counted). */
  attempt: number;
  /** Crash/hang/timeout retries used since the last manual retry. */
  failures: number;
  sessions: Session[];
  /** When a backoff retry is due (ms epoch), or null. */
  retryAt: number | null;
  /** Set when a person skipped or blocked the stage (label or command); labels are level-triggered. */
  skippedBy: "label" | "command" | null;
  blockedBy: "label" | "command" | "retries" | "merge" | null;
  /** True once the stage was removed from the plan file but kept for its history. */
  removed: boolean;
  notes: StageNote[];
  /**
   * The stage branch commit the last completed session's checks ran on: the only commit its merge
   * takes. Null once a push moved the branch past it (the stage must run again before it merges);
   * absent when the run did not say (older plans).
   */
  checkedSha?: string | null;
  /**
   * Set while the stage waits in `needs-human-review` for a person to merge it (`auto_merge:
   * false`): when it started waiting (ms), so a `/loom merge` comment written before cannot merge
   * it. What a person merges is `checkedSha`. Cleared when the stage leaves `needs-human-review`.
   */
  mergeWaitSince?: number;
  /** Set while the stage waits for a person's decision on a disputed criterion (see `Dispute`). */
  dispute?: Dispute;
  /**
   * The amendments people made to the stage's acceptance criteria in this run, oldest first (at
   * most the plan's `adjudication.max_amendments_per_stage`). Absent before the first.
   */
  amendments?: StageAmendment[];
  /**
   * Set from a `/loom amend` until its `check` run finishes (or a person's retry or continue takes
   * over): the next attempt is a check-only run.
   */
  amendCheck?: true;
  /**
   * While merged: the commit the pull request's head must contain for the stage to count as merged
   * (the checked commit, else loom's merge commit). Absent in older plans or when not known.
   */
  mergedSha?: string;
  /**
   * A `/loom continue` not yet carried out: its attempts are `continue` sessions until one ends
   * with the stage's checks run (completed, or completed with failures). Absent otherwise.
   */
  continuation?: Continuation;
  /**
   * Set while the stage is merged again because a push dropped its merge from the pull request's
   * head (`merge.lost`): when its branch is gone, it runs again instead. Cleared once merged.
   */
  mergeLost?: true;
  /** Set while a completed stage runs again (until its new merge is done). */
  rerun?: Rerun;
  /**
   * The paths the stage's last merge changed on the merge point (at most `MAX_TOUCHED_PATHS`),
   * when GitHub's answer listed them: what the stage built, for a change without `files` globs.
   */
  touchedPaths?: string[];
};

/** A completed stage a change affects, and why (the path, or that it is downstream of one). */
export type AffectedStage = {
  id: string;
  why: string;
  /**
   * The head of the push that affected it, when a push did: should that head prove to be loom's
   * own commit (its push's webhook came before loom's merge answer), the stage is dropped again.
   */
  push?: string;
};

/**
 * The completed stages a change (a person's push) affects and everything downstream of them, shown
 * before anything is spent: `/loom rerun affected` (or the plan check run's button) runs them
 * again. `cause`: the change, for people (`the push of 1a2b3c4`).
 */
export type AffectedSet = { cause: string; at: number; stages: AffectedStage[] };

/**
 * A plan from a fork (`pull_request.head.repo` is another repository). Its merge point is `target`
 * in the base repository; each approved head is merged into it (`syncTarget`) before stages start.
 */
export type ForkState = {
  /** The fork's full name; null once the fork was deleted (no new head runs then). */
  repo: string | null;
  /** `loom/pr-<n>/result/<plan-id>` (`makeTargetBranch`). */
  target: string;
  /** The newest approved head merged into `target`, null before the first. */
  syncedSha: string | null;
  /** The head a `syncTarget` was asked for that has not answered yet. */
  syncingSha: string | null;
  /** Why head `sha` could not be merged into `target` (conflict, refusal): it does not run. */
  problem: { sha: string; detail: string } | null;
};

/**
 * Why the plan waits for budget: the stage it would start next and the numbers behind the
 * decision (`stagesAhead` and `basis`: how the forecast was made; absent in older states).
 */
export type BudgetWait = {
  stageId: string;
  spentUsd: number;
  forecastUsd: number;
  budgetUsd: number;
  stagesAhead?: number;
  basis?: ForecastBasis;
};

export type PlanState = {
  plan: PlanSpec;
  settings: Settings;
  /**
   * `headAt`: GitHub's time (ms) the head was pushed, when known (pins comment approvals).
   * `plansUntouched`: the head is loom's own commit on the head before it (a merge, a rename of the
   * plan file) and changed no plan file but loom's rename, so the pull request's plan files are the
   * ones loom already read: its push's webhook needs no file list.
   * `headTree`: the head commit's tree, when loom made that commit and its answer named the tree
   * (a merge, a rename): a rename on it needs no read of the commit.
   */
  pr: {
    number: number;
    headRef: string;
    headSha: string;
    baseRef: string;
    headAt?: number;
    plansUntouched?: true;
    headTree?: string;
  };
  /**
   * Where the stage branches live: `loom/pr-<n>/<plan-id>`. Absent in plans stored by loom 0.2,
   * whose branches are `loom/<plan-id>/<stage-id>` and stay so until the plan ends.
   */
  branchPrefix?: string;
  /** Set for a plan from a fork: its stages merge into loom's result branch, never the fork's branch. */
  fork?: ForkState;
  /** The stage check runs are named `loom: <plan-id> / <stage-id>` (the pull request holds several plans). */
  checkNamesWithPlan?: boolean;
  /** Where the plan file is on the pull request's branch once loom renamed it (`IN_PROGRESS-…`, `DONE-…`). */
  planFile?: string;
  /** Why loom could not rename the plan file (it stops trying; the plan ends without it). */
  planFileProblem?: string;
  /** US dollars people added to the plan's budget (`/loom budget +N`). */
  budgetRaisedUsd?: number;
  /** Set while the next stage waits because its forecast would pass the budget (cleared when it starts). */
  budgetWait?: BudgetWait | null;
  /** The stages a change affects, waiting for a person to re-run them (absent or null: none). */
  affected?: AffectedSet | null;
  /** When loom last wrote a refusal's reason to each person (login → ms), kept for an hour. */
  refusalRepliedAt?: Record<string, number>;
  trusted: boolean;
  /** Head SHA approved by someone with write access (for untrusted plans). */
  approvedSha: string | null;
  /** Merge commits loom itself produced (its merge responses), newest last: only these are loom's pushes. */
  loomHeads?: string[];
  /**
   * An approval dropped when the head moved from the approved `from` to `to` before loom knew `to`
   * was its own merge (the push's webhook, or a read-back of the head, came before the merge's
   * answer was recorded). `onApproved`: the push's own `before` was `from` (seen in its webhook).
   */
  approvalLost?: { from: string; to: string; onApproved: boolean };
  /**
   * Why a plan that trusted its author no longer does: its file changed in a commit loom made (a
   * stage's merge), which no person wrote. From then on every head needs a person's approval.
   */
  distrusted?: string;
  hold: boolean;
  closed: boolean;
  labels: string[];
  /** loom labels last added or removed by someone not allowed to steer loom: they keep their old effect. */
  ignoredLabels?: string[];
  stages: Record<string, StageState>;
  /**
   * The newest check run loom created for each check (by `getCheckSlot`: stage id or `@plan`) and
   * the head SHA it is on: every run the plan created is here, so the app creates a missing one
   * without looking, updates a known one, and completes the old head's as superseded once the head
   * moved. Absent in states written before it existed: those plans keep looking their runs up.
   */
  checkRuns?: Record<string, { headSha: string; id: number }>;
  /** loom's labels the app has created (or found, or given up on) for this plan; absent before it did any. */
  labelsEnsured?: string[];
  /** Order stages appear in the plan, for stable output. */
  order: string[];
  /** Transitions refused as invalid: recorded, never thrown. */
  rejected: { at: number; stageId: string | null; reason: string }[];
  updatedAt: number;
};
