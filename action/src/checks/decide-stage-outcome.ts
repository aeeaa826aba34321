import type { CheckResult, CommitInfo, StageOutcome } from "../../../src/artifacts/stage-result.ts";
import type { StageType } from "../../../src/plan/plan.ts";
import type { SessionKind } from "../../../src/stage/stage-status.ts";

/** How the session itself ended, as runSession reports it. */
export type SessionEnd =
  "completed" | "needs-handoff" | "hung" | "budget-exceeded" | "max-turns" | "crashed" | "cancelled";

export type StageEvidence = {
  kind: SessionKind;
  stageType: StageType;
  session: { status: SessionEnd; reason: string };
  /** Commits made during this session (the agent's and the runner's leftovers commit). */
  commits: readonly CommitInfo[];
  /** Checks that ran; null when they were not run (the session was stopped mid-work). */
  checks: readonly CheckResult[] | null;
  permissionDenials: readonly string[];
  /** Set when the runner could not commit (an unfinished merge). */
  uncommittedReason?: string;
  /**
   * The session started on a head that already holds loom's merge of this stage (a completed
   * stage run again): its work is there, so checks passing without new commits is done.
   */
  mergedBefore?: boolean;
};

export type StageVerdict = { outcome: StageOutcome; reason: string };

/** Session ends where loom stopped or lost the session: the outcome says so whatever else is true. */
const INTERRUPTED: Record<Exclude<SessionEnd, "completed" | "crashed">, StageOutcome> = {
  "needs-handoff": "needs-handoff",
  "max-turns": "needs-handoff",
  hung: "hung",
  "budget-exceeded": "timed-out",
  cancelled: "cancelled",
};

/** `1 check`, `2 checks`. */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function withDenials(reason: string, denials: readonly string[]): string {
  return denials.length === 0 ? reason : `${reason}; ${plural(denials.length, "tool use")} refused`;
}

/** Checks whose own output says best why they failed (the command or path alone does not). */
const SAYS_WHY: ReadonlySet<CheckResult["kind"]> = new Set([
  "code_review",
  "change_impact",
  "regression_test",
]);

function describeFailure(check: CheckResult | undefined): string {
  if (check === undefined) return "";
  const why = check.output_tail.split("\n")[0]?.trim() ?? "";
  if (!SAYS_WHY.has(check.kind) || why === "") return `${check.kind} ${check.name}`;
  return `${check.kind}: ${why.length <= 400 ? why : `${why.slice(0, 399)}…`}`;
}

/** Whether a session that made no commits may still count as done. */
function mayCompleteWithoutCommits(e: StageEvidence, checks: readonly CheckResult[]): boolean {
  if (checks.length === 0) return false; // nothing happened and nothing was verified
  // An earlier attempt's commits already satisfy the checks (a continue may find nothing to change).
  if (e.kind === "recovery" || e.kind === "continue") return true;
  // A completed stage run again (a retry, an affected re-run): its merged work passes at this head.
  if (e.kind === "stage" && e.mergedBefore === true) return true;
  return e.kind === "stage" && e.stageType === "integration-verify"; // verified, nothing to fix
}

/**
 * The stage outcome from evidence, never from an exit code alone:
 * - a session loom stopped (silence, context budget, turn or spend cap) keeps that outcome;
 * - any failed check → `completed-with-failures`, naming the first failure;
 * - no commits → `completed-with-failures` ("green but nothing happened"), unless a recovery
 *   or continue session finds earlier work passing its checks, a stage run again after its merge
 *   finds its merged work passing them, or a verify stage had nothing to fix;
 * - a crash without a result counts as `completed` only when there are commits and every
 *   declared check passed (and at least one was declared).
 */
export function decideStageOutcome(e: StageEvidence): StageVerdict {
  const status = e.session.status;
  if (status !== "completed" && status !== "crashed") {
    return { outcome: INTERRUPTED[status], reason: withDenials(e.session.reason, e.permissionDenials) };
  }
  const checks = e.checks ?? [];
  const failed = checks.filter((c) => !c.passed);
  const commits = e.commits.length;
  if (status === "crashed") {
    const provenDone =
      commits > 0 && checks.length > 0 && failed.length === 0 && e.uncommittedReason === undefined;
    if (!provenDone)
      return { outcome: "crashed", reason: withDenials(e.session.reason, e.permissionDenials) };
    const reason = `${e.session.reason}; but ${plural(commits, "commit")} exist and all ${plural(checks.length, "check")} pass`;
    return { outcome: "completed", reason: withDenials(reason, e.permissionDenials) };
  }
  if (e.uncommittedReason !== undefined) {
    return {
      outcome: "completed-with-failures",
      reason: withDenials(e.uncommittedReason, e.permissionDenials),
    };
  }
  if (failed.length > 0) {
    const first = failed[0];
    const reason = `${failed.length} of ${plural(checks.length, "check")} failed, first: ${describeFailure(first)}`;
    return { outcome: "completed-with-failures", reason: withDenials(reason, e.permissionDenials) };
  }
  if (commits === 0) {
    if (mayCompleteWithoutCommits(e, checks)) {
      const reason =
        e.mergedBefore === true
          ? `no new commits: its work was merged before and all ${plural(checks.length, "check")} pass at this head`
          : `no new commits; all ${plural(checks.length, "check")} pass`;
      return { outcome: "completed", reason: withDenials(reason, e.permissionDenials) };
    }
    const why =
      checks.length === 0
        ? "and the stage declares no checks"
        : `though ${plural(checks.length, "check")} pass`;
    return {
      outcome: "completed-with-failures",
      reason: withDenials(`the session made no commits ${why}`, e.permissionDenials),
    };
  }
  const verified =
    checks.length === 0
      ? "the stage declares no checks, nothing was verified"
      : `all ${plural(checks.length, "check")} pass`;
  return {
    outcome: "completed",
    reason: withDenials(`${plural(commits, "commit")}; ${verified}`, e.permissionDenials),
  };
}
