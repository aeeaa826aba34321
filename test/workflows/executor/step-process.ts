import { spawn } from "node:child_process";

/** How a step's process ended; `timedOut`: killed by a time limit, `cancelled`: stopped by a cancel. */
export type StepExit = { code: number | null; signal: string | null; timedOut: boolean; cancelled: boolean };

export type StepProcess = {
  done: Promise<StepExit>;
  /** Kills the step's process group at once (a lost runner, the end of a test). */
  kill(): void;
  /** Stops the step as GitHub's runner cancels one (see `CANCEL_SIGNALS`). */
  cancel(): void;
  /** A time limit ran out (`timeout-minutes`): stopped like a cancel, recorded as timed out. */
  timeOut(): void;
  /** Kills what the step left running in its process group ("Cleaning up orphan processes" at the job's end). */
  cleanUp(): void;
};

/**
 * How GitHub's runner cancels a step: SIGINT to the step's process, SIGTERM if it is still there
 * 7.5 s later, then it kills the process tree 2.5 s after that ("Workflow cancellation reference").
 * The action relies on the grace: it stops its session and still uploads loom-result.
 */
export const CANCEL_SIGNALS = { sigtermAfterMs: 7_500, killAfterMs: 2_500 } as const;

/**
 * Starts a step's process (bash for `run:`, node for an action) in its own process group, so a kill
 * stops what it started too (Claude Code, its tools). Output goes to `onOutput` as it comes.
 */
export function startStepProcess(input: {
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  cwd: string;
  onOutput: (chunk: string) => void;
}): StepProcess {
  const child = spawn(input.command, input.args, {
    cwd: input.cwd,
    env: input.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.setEncoding("utf8").on("data", input.onOutput);
  child.stderr.setEncoding("utf8").on("data", input.onOutput);
  let timedOut = false;
  let cancelled = false;
  const ended = (): boolean => child.exitCode !== null || child.signalCode !== null;
  const killGroup = (): void => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
    }
  };
  const kill = (): void => {
    if (!ended()) killGroup();
  };
  const timers: NodeJS.Timeout[] = [];
  const stop = (): void => {
    if (timers.length > 0 || ended()) return;
    child.kill("SIGINT");
    timers.push(
      setTimeout(() => {
        if (!ended()) child.kill("SIGTERM");
        timers.push(setTimeout(kill, CANCEL_SIGNALS.killAfterMs));
      }, CANCEL_SIGNALS.sigtermAfterMs),
    );
  };
  const done = new Promise<StepExit>((resolve) => {
    child.on("error", (error) => {
      input.onOutput(`${error.message}\n`);
      resolve({ code: null, signal: null, timedOut, cancelled });
    });
    child.on("close", (code, signal) => {
      for (const timer of timers) clearTimeout(timer);
      resolve({ code, signal, timedOut, cancelled });
    });
  });
  return {
    done,
    kill,
    cancel() {
      cancelled = true;
      stop();
    },
    timeOut() {
      timedOut = true;
      stop();
    },
    cleanUp: killGroup,
  };
}
