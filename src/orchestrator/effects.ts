import type { PlanFilePrefix } from "../plan/lifecycle-path.ts";
import type { SessionKind } from "../stage/stage-status.ts";
import type { CommandSource } from "./events.ts";

/**
 * Commands the orchestrator asks the app to carry out. Plain JSON. Every effect has a
 * deterministic `key` (plan blob SHA, stage id, attempt) that the app records with what it
 * creates (run name, check run `external_id`, comment marker), so it can look before creating:
 * a crash between deciding and doing never doubles a dispatch or a merge.
 */
export type Effect =
  | {
      /**
       * Makes sure the stage branch exists before a retry's run (the first attempt's publish job
       * creates it; for a caller of an older stage workflow, before the first run too): leaves an
       * existing branch as it is, else creates it at the merge point's head.
       */
      type: "createBranch";
      key: string;
      stageId: string;
      /** `loom/pr-<n>/<plan-id>/<stage-id>` */
      branch: string;
      /** The merge point (`getMergePoint`): its current head is the start. */
      from: string;
      /**
       * Before the stage's first run (a caller of an older stage workflow): no branch is expected,
       * so it is created without looking first (GitHub's 422 keeps one that exists).
       */
      first?: true;
      /**
       * A completed stage runs again on the current head: the branch is moved to the merge
       * point's head (its earlier work is merged there), or created there when missing.
       */
      reset?: true;
    }
  | {
      type: "dispatchRun";
      key: string;
      stageId: string;
      attempt: number;
      kind: SessionKind;
      branch: string;
      previousRunId: number | null;
      /**
       * For a `continue` session: the person's instructions, which the app records where the run
       * job reads them with its read-only token (see `app/github/record-continuation.ts`) before
       * it dispatches; the dispatch inputs stay what every caller workflow declares.
       */
      continuation?: { instructions: string; by: string; fromAttempt: number };
      /**
       * For any session but a merge session of a stage a person amended (`/loom amend`): its
       * amended criteria (0-based index, command, who) and the commit a `check` run checks them on
       * (the disputed one), which the app records where the run job reads them (see
       * `app/github/record-amendment.ts`) before it dispatches.
       */
      amendment?: {
        checkedSha: string;
        amendments: { criterionIndex: number; command: string; by: string }[];
      };
    }
  | { type: "cancelRun"; key: string; stageId: string; runId: number }
  | {
      type: "mergeBranch";
      key: string;
      stageId: string;
      /** The stage branch. */
      head: string;
      /** The merge point. */
      base: string;
      message: string;
      /**
       * The commit the stage's checks ran on (what its publish job pushed): merged by SHA, and only
       * while the stage branch still points at it. Absent for plans started before it was recorded.
       */
      sha?: string;
    }
  | {
      type: "syncCheckRun";
      key: string;
      stageId: string | null;
      /**
       * A write that moves the run to a new head: a stage's written only because the head moved
       * under it (nothing else of the stage changed), the plan's while its run is to move (see
       * `computeSyncEffects`). The App waits a moment before writing it, so a burst of head moves
       * (merges landing together) moves the check run once.
       */
      follow?: true;
    }
  | { type: "syncStatusComment"; key: string }
  | { type: "reply"; key: string; source: CommandSource; reaction: "+1" | "-1" | "eyes"; body: string | null }
  | { type: "setTimer"; key: string; at: number }
  /** `continueRecord`: the stage was continued; its `/loom continue` record ref goes too. */
  /** `amendRecord`: a person amended its criteria; its `/loom amend` record ref goes too. */
  | { type: "deleteBranch"; key: string; branch: string; continueRecord?: true; amendRecord?: true }
  /**
   * Renames the plan file on the pull request's branch to `<prefix>PLAN-….md` in one commit on the
   * head loom knows (the reference CLI's lifecycle names): `IN_PROGRESS-` once a stage started,
   * `DONE-` once every stage is merged or skipped. From where the state says the file is now.
   */
  | { type: "renamePlanFile"; key: string; prefix: PlanFilePrefix }
  /**
   * Brings the approved head `sha` of a fork plan into its result branch `branch` in the base
   * repository (GitHub keeps the fork's head there as `refs/pull/<n>/head`): creates the branch at
   * `sha`, or merges `sha` into it by SHA. Never writes to the fork. Answered by `target.synced`.
   */
  | { type: "syncTarget"; key: string; branch: string; sha: string }
  /** Create one of loom's labels in the repository unless it exists (low priority: see `plan-labels.ts`). */
  | { type: "ensureLabel"; key: string; label: { name: string; color: string; description: string } };

export type EffectType = Effect["type"];
