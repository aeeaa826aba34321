import { spawn } from "node:child_process";

export type CommandRun = {
  /** Exit code, or null when the process was killed by a signal (timeouts included). */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  durationMs: number;
  /** Set when the shell could not be started at all. */
  spawnError?: string;
};

export type RunCommandOptions = {
  command: string;
  cwd: string;
  timeoutMs: number;
  env: Record<string, string | undefined>;
  /** Output kept per stream (characters); the head is dropped past this. */
  maxOutput?: number;
  now?: () => number;
};

const DEFAULT_MAX_OUTPUT = 4 * 1024 * 1024;

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch (error) {
    // ESRCH: the group is already gone, which is what we wanted.
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}

/**
 * Run one shell command (`bash -c`) in its own process group. On timeout the whole group is
 * killed; after a normal exit, leftovers (background daemons) are killed too, so a check can
 * never hold the job open.
 */
export function runCommand(options: RunCommandOptions): Promise<CommandRun> {
  const now = options.now ?? Date.now;
  const maxOutput = options.maxOutput ?? DEFAULT_MAX_OUTPUT;
  const started = now();
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    let settled = false;
    const child = spawn("bash", ["-c", options.command], {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const keep = (buffer: string, chunk: string): string => {
      const joined = buffer + chunk;
      return joined.length > maxOutput ? joined.slice(joined.length - maxOutput) : joined;
    };
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout = keep(stdout, chunk)));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr = keep(stderr, chunk)));
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, options.timeoutMs);
    const finish = (exitCode: number | null, spawnError?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const run: CommandRun = { exitCode, stdout, stderr, timedOut, durationMs: now() - started };
      resolve(spawnError === undefined ? run : { ...run, spawnError });
    };
    child.on("error", (error) => finish(null, error.message));
    child.on("exit", () => {
      // Leftover background processes would keep the pipes (and the job) open.
      killGroup(child.pid);
    });
    child.on("close", (code) => finish(timedOut ? null : code));
  });
}
