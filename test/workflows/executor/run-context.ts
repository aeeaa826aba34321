import type { RunRecord } from "../../emulator/emulator-state.ts";
import type { Emulator } from "../../emulator/start-emulator.ts";
import type { ClaudeToolCache } from "./claude-tool-cache.ts";
import type { Value } from "./evaluate-template.ts";
import type { Permissions } from "./job-permissions.ts";
import type { LoadedWorkflow } from "./load-workflow.ts";
import type { UsesResolver } from "./resolve-uses.ts";
import type { RunnerSpec } from "./runs-on.ts";
import type { StepExit, StepProcess } from "./step-process.ts";
import type { CloudCredentials } from "./stand-ins/stand-ins.ts";

export type JobConclusion = "success" | "failure" | "cancelled" | "skipped";

/** A finished job as `needs.<id>` shows it to later jobs. */
export type JobResult = { result: JobConclusion; outputs: Record<string, string> };

/** A workflow file's level: the run's own workflow, or a called one with the inputs and secrets its caller passed. */
export type WorkflowScope = {
  file: string;
  inputs: Record<string, Value>;
  secrets: Record<string, string>;
  /** Its `env:`, evaluated. */
  env: Record<string, string>;
  /** What a job of it that declares no `permissions:` (nor its workflow) gets: the default, or its caller's. */
  inherited: Permissions;
};

export type StepReport = {
  id: string;
  name: string;
  uses: string | null;
  outcome: JobConclusion;
  conclusion: JobConclusion;
  outputs: Record<string, string>;
  exit: StepExit | null;
};

/** What the executor tells about a job that ran (or was skipped). */
export type JobReport = {
  runId: number;
  /** The job's own id (`run`, `publish`), inside a called workflow too. */
  id: string;
  /** As GitHub shows it: `stage / run`. */
  name: string;
  conclusion: JobConclusion;
  steps: StepReport[];
  outputs: Record<string, string>;
  /** The job log, masked. */
  log: string;
  /** Its workspace (`GITHUB_WORKSPACE`). */
  workspace: string;
  /** A job that called a reusable workflow (reported once its jobs ended): the `uses:` it called; its outputs are the workflow's. */
  calls?: string;
};

/** Cancellation of one run: every step process running, and what waits (a queued job). */
export type RunCancel = {
  cancelled: boolean;
  processes: Set<StepProcess>;
  waiters: Set<() => void>;
};

export type ExecutorSettings = {
  emulator: Emulator;
  workDir: string;
  secrets: Record<string, string>;
  runners: readonly RunnerSpec[];
  cloud: CloudCredentials;
  toolCache: ClaudeToolCache;
  capMs: number | null;
  onJob: (report: JobReport) => void;
};

/** Everything the jobs of one run share. */
export type RunContext = {
  settings: ExecutorSettings;
  run: RunRecord;
  loaded: LoadedWorkflow;
  resolver: UsesResolver;
  cancel: RunCancel;
  /** The machine's environment every process of this run's jobs starts from. */
  machineEnv: Record<string, string>;
  /** The `github` context of the run, before a job adds `job` and `token`. */
  github: Record<string, Value>;
};

/** Where a job of a run works: its workspace is `<workDir>/run-<id>/<job>/workspace`. */
export function jobDir(workDir: string, runId: number, jobId: string): string {
  return `${workDir}/run-${runId}/${jobId}`;
}
