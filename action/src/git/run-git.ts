import { execFile } from "node:child_process";

export type GitRun = { code: number; stdout: string; stderr: string };

/** Identity of the runner's own commits: never the agent's. */
export const RUNNER_IDENTITY = {
  name: "loom-runner",
  email: "loom-runner@users.noreply.github.com",
} as const;

const MAX_BUFFER = 256 * 1024 * 1024;

/**
 * Runs git in `cwd` with an argument list (no shell) and the checkout's own config defused: its
 * hooks and commit signing are off (the checked-out branch must not run code through git), paths
 * are printed unquoted, commits default to the runner's identity (`GIT_AUTHOR_*` in `env` wins),
 * and git never prompts. A non-zero exit is returned, not thrown; only a git that cannot start at
 * all (a broken runner) rejects.
 */
export function runGit(
  cwd: string,
  args: readonly string[],
  env: Record<string, string | undefined> = process.env,
): Promise<GitRun> {
  const safeArgs = [
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "commit.gpgSign=false",
    "-c",
    "core.quotePath=false",
    "-c",
    `user.name=${RUNNER_IDENTITY.name}`,
    "-c",
    `user.email=${RUNNER_IDENTITY.email}`,
    ...args,
  ];
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      safeArgs,
      {
        cwd,
        env: { ...env, GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" },
        maxBuffer: MAX_BUFFER,
        encoding: "utf8",
      },
      (error, stdout, stderr) => {
        if (error !== null && typeof error.code !== "number") {
          reject(new Error(`git ${args[0] ?? ""} could not run in ${cwd}`, { cause: error }));
          return;
        }
        resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr });
      },
    );
  });
}

/** Runs git and returns stdout; a non-zero exit is a `GitError` (a bug or a broken checkout). */
export async function readGit(
  cwd: string,
  args: readonly string[],
  env?: Record<string, string | undefined>,
): Promise<string> {
  const run = await runGit(cwd, args, env);
  if (run.code !== 0) throw new GitError(args, run);
  return run.stdout;
}

export class GitError extends Error {
  override readonly name = "GitError";
  readonly args: readonly string[];
  readonly run: GitRun;
  constructor(args: readonly string[], run: GitRun) {
    super(`git ${args.join(" ").slice(0, 200)} exited ${run.code}: ${run.stderr.trim().slice(0, 500)}`);
    this.args = args;
    this.run = run;
  }
}
