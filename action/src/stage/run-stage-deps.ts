import type { StageResult } from "../../../src/artifacts/stage-result.ts";
import type { RepoConfigRead } from "../config/read-repo-config.ts";
import type { SessionSandbox } from "../isolation/session-isolation.ts";
import type { LimitNetwork } from "../sandbox/network-limit.ts";
import type { HookPrograms } from "../session/hook-settings.ts";
import type { RunSessionOptions } from "../session/run-session.ts";
import type { SessionOutcome } from "../session/session-outcome.ts";
import type * as names from "../upload/artifact-port.ts";
import type { ContinueRecordRead } from "../github/read-continue-record.ts";
import type { AmendRecordRead } from "../github/read-amend-record.ts";
import type { LoadPreviousOptions, PreviousSession } from "../upload/load-previous-session.ts";

/** What `runStage` needs from the job: the checkout, the environments, the uploads, the clock. */
export type RunStageDeps = {
  /** The checkout of the stage branch. */
  workspace: string;
  /** A scratch directory outside the checkout (signal, transcript, result, bundle). */
  tempDir: string;
  /** The session's environment: holds the model key, no GitHub or Actions tokens. */
  sessionEnv: Record<string, string | undefined>;
  /** The checks' environment: no secrets at all. */
  checkEnv: Record<string, string | undefined>;
  /** Values redacted from everything that leaves the job. */
  knownSecrets: readonly string[];
  hooks: HookPrograms | null;
  /**
   * Where the session and the checks run: as a separate user (`isolation.kind === "user"`), or as
   * the action's own user with the reason. The action's entry always sets it; left out (tests of
   * other parts), everything runs as the calling user and the result records no isolation.
   */
  sandbox?: SessionSandbox;
  runSession: (options: RunSessionOptions) => Promise<SessionOutcome>;
  /**
   * Holds the session user to a network allowlist (loom's egress proxy and an iptables rule for
   * that user) until the job ends. Left out: a stage with a network sandbox cannot be enforced
   * (it fails, or runs advisory where `.github/loom.yml` allows).
   */
  limitNetwork?: LimitNetwork;
  uploadArtifact: names.UploadArtifact;
  /** The previous run's handoff and heartbeat (recovery), and its session state (continue). */
  loadPrevious: (runId: number, options?: LoadPreviousOptions) => Promise<PreviousSession>;
  /**
   * The `/loom continue` record the app wrote for this run (its instructions). Left out: a
   * continue session cannot run and crashes saying so.
   */
  readContinueRecord?: () => Promise<ContinueRecordRead>;
  /**
   * The `/loom amend` record the app wrote for this check run (the amended criteria). Left out: a
   * check run cannot run and crashes saying so.
   */
  readAmendRecord?: () => Promise<AmendRecordRead>;
  writeSummary: (markdown: string) => Promise<void>;
  /**
   * `.github/loom.yml` from the trusted ref (the dispatched commit, never the stage branch): its
   * `session:` caps are defaults and ceilings. Left out: no repository config.
   */
  readRepoConfig?: () => Promise<RepoConfigRead>;
  log: (message: string, data?: Record<string, unknown>) => void;
  now: () => number;
  /** Heartbeat uploads closer than this are skipped (default `MIN_HEARTBEAT_UPLOAD_GAP_MS`). */
  heartbeatGapMs?: number;
  /**
   * Aborted when the run is cancelled: the session is stopped (or never started), no checks run,
   * and `loom-result` (outcome `cancelled`, with the handoff) is uploaded before anything else.
   */
  signal?: AbortSignal;
};

export type RunStageResult = { result: StageResult; resultFile: string };
