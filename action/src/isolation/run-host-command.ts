import { execFile } from "node:child_process";

export type HostRun = { code: number; stdout: string; stderr: string };

/** Runs a program (no shell) and returns its exit code and output; a program that cannot start is exit 127. */
export function runHostCommand(command: string, args: readonly string[]): Promise<HostRun> {
  return new Promise((resolve) => {
    execFile(command, args, { encoding: "utf8", timeout: 60_000 }, (error, stdout, stderr) => {
      if (error === null) return resolve({ code: 0, stdout, stderr });
      const code = typeof error.code === "number" ? error.code : 127;
      resolve({ code, stdout, stderr: stderr === "" ? error.message : stderr });
    });
  });
}
