import { rm } from "node:fs/promises";
import path from "node:path";
import { killUserProcesses } from "./kill-user-processes.ts";
import { prepareIsolation } from "./prepare-isolation.ts";
import { runHostCommand } from "./run-host-command.ts";
import { sessionUserName, type SessionSandbox } from "./session-isolation.ts";

/**
 * The sandbox of this job's session: the runner's session user (created when missing) or the
 * reason there is none, a HOME for it and the action's private folder, both under `tempDir`.
 */
export async function createSessionSandbox(tempDir: string, runnerTemp: string): Promise<SessionSandbox> {
  const isolation = await prepareIsolation(
    { uid: process.getuid?.() ?? -1, run: runHostCommand },
    sessionUserName(runnerTemp),
  );
  return {
    isolation,
    home: path.join(tempDir, "session-home"),
    privateDir: path.join(tempDir, "isolation"),
    owner: { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 },
  };
}

/**
 * After the job's work: kills what the session user still runs and, when this job created the
 * user, removes it and its HOME (a later user given the same uid must not own its files).
 * Returns what could not be done, for the log.
 */
export async function disposeSessionSandbox(sandbox: SessionSandbox): Promise<string[]> {
  const isolation = sandbox.isolation;
  if (isolation.kind === "none") return [];
  const problems: string[] = [];
  const left = await killUserProcesses(sandbox);
  if (left.length > 0) problems.push(`${left.length} processes of ${isolation.user} survived SIGKILL`);
  if (!isolation.created) return problems;
  const sudo = isolation.via === "sudo";
  const home = sudo
    ? await runHostCommand("sudo", ["-n", "rm", "-rf", "--", sandbox.home])
    : await rm(sandbox.home, { recursive: true, force: true }).then(() => ({ code: 0, stderr: "" }));
  if (home.code !== 0) problems.push(`could not remove ${sandbox.home}: ${home.stderr.trim()}`);
  const gone = await runHostCommand(sudo ? "sudo" : "userdel", [
    ...(sudo ? ["-n", "userdel"] : []),
    isolation.user,
  ]);
  if (gone.code !== 0) problems.push(`could not remove the user ${isolation.user}: ${gone.stderr.trim()}`);
  return problems;
}
