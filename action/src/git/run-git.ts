import { execFile } from "node:child_process";

export type GitRun = { code: number; stdout: string; stderr: string };

/** Identity of the runner's own commits: never the agent's. */
export const RUNNER_IDENTITY = {
  name: "loom-runner",
  email: "loom-runner@users.noreply.github.com",
} as const;

/**
 * Run git with the repository's hooks and signing turned off (the checked-out branch must not be
 * able to run code through git config) and the runner's identity. Never throws for a non-zero exit.
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
    `user.name=${RUNNER_IDENTITY.name}`,
    "-c",
    `user.email=${RUNNER_IDENTITY.email}`,
    ...args,
  ];
  return new Promise((resolve) => {
    execFile(
      "git",
      safeArgs,
      {
        cwd,
        env: { ...env, GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" },
        maxBuffer: 64 * 1024 * 1024,
        encoding: "utf8",
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
        resolve({ code, stdout, stderr: error !== null && stderr === "" ? error.message : stderr });
      },
    );
  });
}

/** Run git and fail loudly: for steps whose failure is a bug or a broken checkout. */
export async function runGitOrThrow(
  cwd: string,
  args: readonly string[],
  env?: Record<string, string | undefined>,
): Promise<string> {
  const run = await runGit(cwd, args, env);
  if (run.code !== 0) throw new GitError(args, run);
  return run.stdout;
}

export class GitError extends Error {
  readonly args: readonly string[];
  readonly run: GitRun;
  constructor(args: readonly string[], run: GitRun) {
    super(`git ${args[0] ?? ""} failed (exit ${run.code}): ${run.stderr.trim().slice(0, 500)}`);
    this.name = "GitError";
    this.args = args;
    this.run = run;
  }
}
