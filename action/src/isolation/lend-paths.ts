import { cp, lstat, mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { killUserProcesses } from "./kill-user-processes.ts";
import { runHostCommand, type HostRun } from "./run-host-command.ts";
import type { SessionSandbox } from "./session-isolation.ts";

/** Gives the paths back to the action: call once, after the session user's work is done. */
export type Lease = { reclaim: () => Promise<void> };

export type LendRequest = {
  /** The checkout: handed to the session user, its git configuration snapshotted first. */
  checkout: string;
  /** Other folders the session user writes (its state, the learnings folder). */
  writable?: readonly string[];
  /** Programs and folders it only needs to reach (Claude Code, node, loom's hooks, PATH). */
  reachable?: readonly string[];
};

/**
 * The files in `.git` through which a checkout runs programs or reads configuration from
 * elsewhere (`core.fsmonitor`, filter and diff drivers, hooks, `include.path`, a common dir).
 * The action's own git commands after the session must not run what the session wrote there.
 */
const GIT_CONTROL_FILES = ["config", "config.worktree", "commondir", "hooks", "info/attributes"] as const;

export class CheckoutTamperedError extends Error {
  override readonly name = "CheckoutTamperedError";
}

function privileged(sandbox: SessionSandbox, command: string, args: readonly string[]): Promise<HostRun> {
  const isolation = sandbox.isolation;
  return isolation.kind === "user" && isolation.via === "sudo"
    ? runHostCommand("sudo", ["-n", command, ...args])
    : runHostCommand(command, args);
}

async function mustRun(sandbox: SessionSandbox, command: string, args: readonly string[]): Promise<void> {
  const run = await privileged(sandbox, command, args);
  if (run.code !== 0)
    throw new Error(
      `${command} ${args.join(" ")} failed (exit ${run.code}): ${run.stderr.trim().slice(0, 300)}`,
    );
}

/** Folders from `/` down to (not including) `target` that others cannot enter, with their mode. */
async function closedAncestors(target: string): Promise<Map<string, number>> {
  const closed = new Map<string, number>();
  let dir = path.dirname(path.resolve(target));
  for (;;) {
    const info = await lstat(dir).catch(() => null);
    if (info?.isDirectory() === true && (info.mode & 0o001) === 0) closed.set(dir, info.mode & 0o7777);
    const parent = path.dirname(dir);
    if (parent === dir) return closed;
    dir = parent;
  }
}

/**
 * Hands the checkout and the session's folders to the session user (`chown -R -h`: links are
 * changed themselves, never followed) and opens the folders above them for passing through only
 * (o+x, no listing). `reclaim` kills whatever the session user still runs, gives everything back
 * to the action's user and puts back the `.git` configuration and hooks as they were before (so
 * the action's git never runs what the session planted there). The opened folders stay open for
 * passing through: another job on the same machine may be using them (closing them under it would
 * break its session), and passing through reveals no names. Without isolation it does nothing.
 */
export async function lendPaths(sandbox: SessionSandbox, request: LendRequest): Promise<Lease> {
  const isolation = sandbox.isolation;
  if (isolation.kind === "none") return { reclaim: () => Promise.resolve() };
  const gitDir = path.join(request.checkout, ".git");
  const snapshot = path.join(sandbox.privateDir, `git-${Date.now().toString(36)}-${process.pid}`);
  await mkdir(sandbox.privateDir, { recursive: true, mode: 0o700 });
  const saved = new Map<string, boolean>();
  if ((await lstat(gitDir).catch(() => null))?.isDirectory() === true)
    for (const name of GIT_CONTROL_FILES) {
      const from = path.join(gitDir, name);
      const exists = (await lstat(from).catch(() => null)) !== null;
      saved.set(name, exists);
      if (exists) await cp(from, path.join(snapshot, name), { recursive: true, verbatimSymlinks: true });
    }
  const writable = [request.checkout, sandbox.home, ...(request.writable ?? [])];
  const opened = new Map<string, number>();
  for (const target of [...writable, ...(request.reachable ?? [])])
    for (const [dir, mode] of await closedAncestors(target))
      if (!writable.includes(dir)) opened.set(dir, mode);
  for (const [dir, mode] of opened) await mustRun(sandbox, "chmod", [(mode | 0o001).toString(8), dir]);
  await mkdir(sandbox.home, { recursive: true, mode: 0o700 });
  const to = `${isolation.uid}:${isolation.gid}`;
  for (const target of writable) await mustRun(sandbox, "chown", ["-R", "-h", to, target]);

  let reclaimed = false;
  const reclaim = async (): Promise<void> => {
    if (reclaimed) return;
    reclaimed = true;
    const left = await killUserProcesses(sandbox);
    if (left.length > 0)
      throw new Error(`the session user still runs ${left.length} processes after SIGKILL`);
    const back = `${sandbox.owner.uid}:${sandbox.owner.gid}`;
    for (const target of writable.filter((t) => t !== sandbox.home))
      await mustRun(sandbox, "chown", ["-R", "-h", back, target]);
    if (saved.size === 0) return;
    if ((await lstat(gitDir).catch(() => null))?.isDirectory() !== true)
      throw new CheckoutTamperedError(`the session replaced ${gitDir}: the checkout cannot be trusted`);
    for (const [name, existed] of saved) {
      const target = path.join(gitDir, name);
      await rm(target, { recursive: true, force: true });
      if (existed) await cp(path.join(snapshot, name), target, { recursive: true, verbatimSymlinks: true });
    }
    await rm(snapshot, { recursive: true, force: true });
  };
  return { reclaim };
}
