import { execFile } from "node:child_process";

export type GitOutput = { code: number; stdout: string; stderr: string };

/** Something went wrong running git itself (not a refusal): a bug or a broken runner. */
export class GitError extends Error {
  override readonly name = "GitError";
  readonly args: readonly string[];
  readonly output: GitOutput;
  constructor(args: readonly string[], output: GitOutput) {
    super(`git ${args.join(" ")} exited ${output.code}: ${output.stderr.trim().slice(0, 500)}`);
    this.args = args;
    this.output = output;
  }
}

const MAX_BUFFER = 256 * 1024 * 1024;

/** Run git in `cwd` with an argument list (no shell), hooks off; never prompts for credentials. */
export function runGit(
  cwd: string,
  args: readonly string[],
  extraEnv: Readonly<Record<string, string>> = {},
): Promise<GitOutput> {
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      ["-c", "core.quotePath=false", "-c", "core.hooksPath=/dev/null", ...args],
      {
        cwd,
        maxBuffer: MAX_BUFFER,
        encoding: "utf8",
        env: { ...process.env, ...extraEnv, GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" },
      },
      (error, stdout, stderr) => {
        if (error !== null && typeof error.code !== "number") {
          reject(new Error(`git ${args.join(" ")} could not run`, { cause: error }));
          return;
        }
        resolve({ code: typeof error?.code === "number" ? error.code : 0, stdout, stderr });
      },
    );
  });
}

/** Run git and return stdout; a non-zero exit is a `GitError`. */
export async function readGit(
  cwd: string,
  args: readonly string[],
  extraEnv: Readonly<Record<string, string>> = {},
): Promise<string> {
  const output = await runGit(cwd, args, extraEnv);
  if (output.code !== 0) throw new GitError(args, output);
  return output.stdout;
}
