import type { Heartbeat } from "../artifacts/heartbeat.ts";
import type { Plan, Stage } from "../plan/plan.ts";
import type { SessionKind } from "../stage/stage-status.ts";

/** What a finished dependency left for this stage (its changes are already merged into the branch). */
export type DependencyOutput = {
  stageId: string;
  /** A short account of what the dependency delivered (its result reason, commit subjects). */
  summary: string;
};

/** A learning from `doc/loom/knowledge/learnings/`, already selected as relevant (best first). */
export type SignalLearning = {
  category: string;
  summary: string;
  detail?: string;
  tags?: readonly string[];
  /** Where it applies: `project` or paths/globs. */
  scope?: string;
};

export type SignalKnowledge = {
  /** Curated knowledge summary (entry points, patterns, conventions), markdown. */
  summary?: string;
  learnings?: readonly SignalLearning[];
};

/**
 * A `/loom continue`: what a person with write access asked for in their own comment (the app
 * checked the sender's permission; the instructions reach the run job only through loom's record,
 * see `ContinueRecord`). They are that person's instructions, quoted with who wrote them; text of
 * anyone else (pull request bodies, other comments) never gets here.
 */
export type SignalInstructions = { text: string; by: string; fromAttempt: number };

/** One criterion a person amended: its 0-based index, the plan file's command, the amended one. */
export type AmendedCriterion = { index: number; was: string; command: string; by: string };

/**
 * A completed stage runs again (a retry, an affected re-run): what landed on its branch after
 * loom's newest merge of its work, read from the checkout's history before the session. Commit
 * subjects are data (people's and sessions' words), fenced in the prompt.
 */
export type RanBefore = {
  /** loom's merge commit of the stage's earlier work. */
  merge: string;
  /** The commits since, newest first: `<sha7> <author>: <subject>`. */
  commits: readonly string[];
  moreCommits: number;
  /** The paths those commits changed. */
  paths: readonly string[];
  morePaths: number;
};

/**
 * Everything a signal is built from. Only trusted inputs: the plan file, the repository's own
 * knowledge, loom's own artifacts, the checkout's own history (what the session can read with
 * `git log` anyway), and the instructions of a person with write access who continued the stage.
 * Pull request bodies and other comments have no field here on purpose.
 */
export type SignalInput = {
  plan: Plan;
  stage: Stage;
  kind: SessionKind;
  attempt: number;
  /** The stage branch the session works on (`makeStageBranchName`). */
  branch: string;
  /** The merge point (the plan pull request's head branch), for merge sessions. */
  base?: string;
  /** The previous session's handoff (markdown), for recovery sessions and continue sessions without its state. */
  handoff?: string;
  /** For continue sessions: the person's instructions. */
  instructions?: SignalInstructions;
  /**
   * Criteria a person amended for this run of the plan (`/loom amend`): the stage's `acceptance`
   * holds the amended commands already; this says which, what the plan file still shows, and who.
   */
  amendedCriteria?: readonly AmendedCriterion[];
  /** For a stage session of a completed stage run again: what changed since its work was merged. */
  ranBefore?: RanBefore;
  /** The previous session's last heartbeat, for recovery sessions. */
  lastHeartbeat?: Heartbeat;
  /** Files in conflict, for merge sessions. */
  conflictFiles?: readonly string[];
  dependencyOutputs?: readonly DependencyOutput[];
  knowledge?: SignalKnowledge;
  /**
   * The file (outside the checkout) where the session records what it learned, one JSON object
   * per line; left out for sessions that record none (merge sessions, `loom prompt`).
   */
  learningsFile?: string;
  /**
   * The runner could not enforce the stage's network sandbox and `.github/loom.yml` lets it run
   * anyway (`session.sandbox: advisory`): the session is told the limit is its to keep.
   */
  networkUnenforced?: true;
  /**
   * The file (outside the checkout) where the session may dispute one of its acceptance criteria
   * (`DisputeRequest`); left out for sessions that dispute none (merge sessions, `loom prompt`).
   */
  disputeFile?: string;
};

/** The context share at which the action stops a session with a handoff, unless the stage says otherwise. */
export const DEFAULT_CONTEXT_BUDGET_PERCENT = 65;
