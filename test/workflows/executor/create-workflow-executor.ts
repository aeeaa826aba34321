import type { RunConclusion } from "../../emulator/create-run-control.ts";
import type { RunRecord } from "../../emulator/emulator-state.ts";
import type { Emulator } from "../../emulator/start-emulator.ts";
import { prepareClaudeToolCache } from "./claude-tool-cache.ts";
import { executeRun } from "./execute-run.ts";
import { createUsesResolver, type LoomSource } from "./resolve-uses.ts";
import type { JobReport, RunCancel } from "./run-context.ts";
import type { RunnerSpec } from "./runs-on.ts";
import type { CloudCredentials } from "./stand-ins/stand-ins.ts";

export type ExecutorOptions = {
  emulator: Emulator;
  /** Scratch space: each job's workspace, temp and home under `run-<id>/<job>/`. */
  workDir: string;
  /** Where `loom-dev/loom/…@<sha>` comes from (see `LoomSource`). */
  source: LoomSource;
  /** The repository's Actions secrets (`secrets.<name>`); `GITHUB_TOKEN` is each job's own token. */
  secrets?: Record<string, string>;
  /** Self-hosted and ARC runners the repository reaches; GitHub-hosted images are always there. */
  runners?: RunnerSpec[];
  /** What the cloud-login stand-ins export (aws-actions/configure-aws-credentials, google-github-actions/auth). */
  cloud?: CloudCredentials;
  /** A test's guard: a step still running after this is killed (a lost runner) and fails. Default: none. */
  stepTimeoutCapMs?: number;
  onJob?: (report: JobReport) => void;
};

export type WorkflowExecutor = {
  /**
   * Runs a dispatched run to its end as GitHub Actions would (in progress, its jobs, completed with a
   * conclusion) and returns the conclusion. `machineEnv`: the runner machine's environment for this
   * run (e.g. ANTHROPIC_BASE_URL of a scripted model). An executor gap (an unknown `uses:`, a commit
   * this clone lacks) completes the run as failed and throws, naming it. `cloud`: this run's
   * cloud-login credentials instead of `ExecutorOptions.cloud` (endpoints scripted per run).
   */
  execute(
    run: RunRecord,
    machineEnv?: Record<string, string>,
    cloud?: CloudCredentials,
  ): Promise<RunConclusion>;
  /** The emulator's cancel: false when the run is not executing here. */
  cancel(runId: number): boolean;
  /** Kills every step still running (the end of a test). */
  killAll(): void;
  /** Why GitHub would have refused a run at startup, by run id. */
  startupFailures: Map<number, string>;
};

export function createWorkflowExecutor(options: ExecutorOptions): WorkflowExecutor {
  const { emulator } = options;
  const resolver = createUsesResolver(options.source);
  const active = new Map<number, RunCancel>();
  const startupFailures = new Map<number, string>();
  const settings = {
    emulator,
    workDir: options.workDir,
    secrets: options.secrets ?? {},
    runners: options.runners ?? [],
    cloud: options.cloud ?? {},
    toolCache: prepareClaudeToolCache(options.source.root),
    capMs: options.stepTimeoutCapMs ?? null,
    onJob: options.onJob ?? (() => undefined),
  };
  const stop = (cancel: RunCancel, how: "cancel" | "kill"): void => {
    cancel.cancelled = true;
    for (const step of cancel.processes) step[how]();
    for (const wake of cancel.waiters) wake();
    cancel.waiters.clear();
  };
  return {
    startupFailures,
    async execute(run, machineEnv = {}, cloud) {
      const cancel: RunCancel = { cancelled: false, processes: new Set(), waiters: new Set() };
      active.set(run.id, cancel);
      try {
        // The runner machine's own environment: this machine's PATH (git, bash, node, npm), then the run's.
        const machine = { PATH: process.env["PATH"] ?? "/usr/bin:/bin", ...machineEnv };
        const { conclusion, startupFailure } = await executeRun(
          cloud ? { ...settings, cloud } : settings,
          resolver,
          run,
          cancel,
          machine,
        );
        if (startupFailure !== null) startupFailures.set(run.id, startupFailure);
        emulator.runs.complete(run.id, conclusion);
        return conclusion;
      } catch (error) {
        emulator.runs.complete(run.id, "failure");
        throw error;
      } finally {
        active.delete(run.id);
      }
    },
    cancel(runId) {
      const cancel = active.get(runId);
      if (!cancel) return false;
      stop(cancel, "cancel");
      return true;
    },
    killAll() {
      for (const cancel of active.values()) stop(cancel, "kill");
    },
  };
}
