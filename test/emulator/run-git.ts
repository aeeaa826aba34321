import { spawn } from "node:child_process";

export type GitResult = { code: number; stdout: string; stderr: string };

export type GitOptions = { input?: string | Uint8Array; env?: Record<string, string> };

/** Runs `git` in `dir` (a bare repository) and resolves with its exit code and output; never rejects on a non-zero exit. */
export function runGit(dir: string, args: string[], options: GitOptions = {}): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", args, {
      cwd: dir,
      env: {
        ...process.env,
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_TERMINAL_PROMPT: "0",
        HOME: dir,
        ...options.env,
      },
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => err.push(chunk));
    child.on("error", (error) => reject(new Error(`git ${args[0] ?? ""} failed to start`, { cause: error })));
    child.on("close", (code) =>
      resolve({
        code: code ?? -1,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
      }),
    );
    if (child.stdin) {
      // git may exit before reading all of its input; the exit code tells what happened.
      child.stdin.on("error", (error) => err.push(Buffer.from(String(error))));
      child.stdin.end(options.input);
    }
  });
}

/** Like `runGit` but throws with git's stderr on a non-zero exit. */
export async function runGitOk(dir: string, args: string[], options: GitOptions = {}): Promise<string> {
  const result = await runGit(dir, args, options);
  if (result.code !== 0)
    throw new Error(`git ${args.join(" ")} exited ${result.code}: ${result.stderr.trim()}`);
  return result.stdout;
}

/** Runs git and returns stdout as raw bytes (for blobs). Null when git fails (missing object or path). */
export function runGitBytes(dir: string, args: string[]): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", args, { cwd: dir, stdio: ["ignore", "pipe", "ignore"] });
    const out: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.on("error", (error) => reject(new Error(`git ${args[0] ?? ""} failed to start`, { cause: error })));
    child.on("close", (code) => resolve(code === 0 ? Buffer.concat(out) : null));
  });
}
