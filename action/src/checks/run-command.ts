import { spawn } from "node:child_process";
import { killUserProcesses, signalUserProcesses } from "../isolation/kill-user-processes.ts";
import { lendPaths } from "../isolation/lend-paths.ts";
import { listReachablePaths } from "../isolation/list-reachable-paths.ts";
import { planSpawn } from "../isolation/plan-spawn.ts";
import type { SessionSandbox } from "../isolation/session-isolation.ts";

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
  /**
   * Run the command as the sandbox's session user (checks run the repository's code: they must not
   * read the runner's tokens either), with `checkout` lent to it for the command and taken back
   * after, every process of that user killed.
   */
  runAs?: { sandbox: SessionSandbox; checkout: string };
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
 * never hold the job open. With `runAs` (an isolating sandbox) it runs as the session user and
 * everything that user runs is killed instead of the group.
 */
export async function runCommand(options: RunCommandOptions): Promise<CommandRun> {
  const sandbox = options.runAs?.sandbox;
  if (options.runAs === undefined || sandbox === undefined || sandbox.isolation.kind === "none")
    return runInGroup(options, undefined);
  let lease;
  try {
    lease = await lendPaths(sandbox, {
      checkout: options.runAs.checkout,
      reachable: listReachablePaths(options.env.PATH, []),
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { exitCode: null, stdout: "", stderr: "", timedOut: false, durationMs: 0, spawnError: message };
  }
  try {
    return await runInGroup(options, sandbox);
  } finally {
    await killUserProcesses(sandbox);
    await lease.reclaim();
  }
}

function runInGroup(options: RunCommandOptions, sandbox: SessionSandbox | undefined): Promise<CommandRun> {
  const now = options.now ?? Date.now;
  const maxOutput = options.maxOutput ?? DEFAULT_MAX_OUTPUT;
  const started = now();
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    let settled = false;
    const plan = planSpawn(sandbox, "bash", ["-c", options.command], options.env);
    const child = spawn(plan.command, plan.args, {
      cwd: options.cwd,
      env: plan.env,
      ...(plan.uid === undefined ? {} : { uid: plan.uid }),
      ...(plan.gid === undefined ? {} : { gid: plan.gid }),
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    // As the session user every process of that user goes (through sudo the group is root's).
    const killAll = (): void => {
      if (sandbox === undefined) killGroup(child.pid);
      else signalUserProcesses(sandbox, "SIGKILL");
    };
    const keep = (buffer: string, chunk: string): string => {
      const joined = buffer + chunk;
      return joined.length > maxOutput ? joined.slice(joined.length - maxOutput) : joined;
    };
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout = keep(stdout, chunk)));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr = keep(stderr, chunk)));
    const timer = setTimeout(() => {
      timedOut = true;
      killAll();
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
      killAll();
    });
    child.on("close", (code) => finish(timedOut ? null : code));
  });
}
