import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * What `actions/checkout` leaves: a full clone on `branch` whose `origin` is the repository. The
 * emulator serves no git smart-HTTP, so `origin` is the bare repository's path on disk (pushes
 * from the publish job land there directly, without a token).
 */
export async function cloneBranch(bareDir: string, branch: string, into: string): Promise<void> {
  await run("git", ["clone", "--quiet", "--branch", branch, "--", bareDir, into], {
    env: { ...process.env, GIT_TERMINAL_PROMPT: "0" },
  });
}
