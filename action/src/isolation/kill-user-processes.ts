import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import type { SessionSandbox } from "./session-isolation.ts";

/** The live (not zombie) processes whose real or effective uid is `uid`, read from /proc. */
export function listUserProcesses(uid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let status: string;
    try {
      status = readFileSync(`/proc/${entry}/status`, "utf8");
    } catch {
      continue; // the process ended while we looked
    }
    const uids = /^Uid:\s+(\d+)\s+(\d+)/m.exec(status);
    const state = /^State:\s+(\S)/m.exec(status)?.[1];
    if (uids === null || state === "Z" || state === "X") continue;
    if (Number(uids[1]) === uid || Number(uids[2]) === uid) pids.push(Number(entry));
  }
  return pids;
}

/**
 * Sends `signal` to every process of the session user (the user is loom's alone: all of them are
 * the session's, also those that left its process group with setsid). Returns how many were found.
 */
export function signalUserProcesses(sandbox: SessionSandbox, signal: NodeJS.Signals): number {
  const isolation = sandbox.isolation;
  if (isolation.kind === "none") return 0;
  const pids = listUserProcesses(isolation.uid);
  if (pids.length === 0) return 0;
  if (isolation.via === "sudo") {
    // The runner's user may not signal another user's processes: pkill runs as root.
    spawnSync("sudo", ["-n", "pkill", `-${signal.replace(/^SIG/, "")}`, "-U", String(isolation.uid)], {
      stdio: "ignore",
      timeout: 10_000,
    });
    return pids.length;
  }
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ESRCH")
        throw new Error(`could not signal process ${pid} of the session user`, { cause: error });
    }
  }
  return pids.length;
}

/**
 * SIGKILLs every process of the session user until none is left (a process may fork while it is
 * being killed), at most `rounds` times. Returns the pids still alive after the last round: empty
 * when the session user has nothing left running.
 */
export async function killUserProcesses(sandbox: SessionSandbox, rounds = 50): Promise<number[]> {
  const isolation = sandbox.isolation;
  if (isolation.kind === "none") return [];
  for (let round = 0; round < rounds; round += 1) {
    if (signalUserProcesses(sandbox, "SIGKILL") === 0) return [];
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return listUserProcesses(isolation.uid);
}
