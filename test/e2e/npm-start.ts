import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, readdir, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { startEmulator, type Emulator } from "../emulator/start-emulator.ts";
import { freePort } from "../support/free-port.ts";
import { readmeCaller } from "../workflows/readme-caller.ts";
export { freePort };

/** `npm start` run as a newcomer runs it, in a fresh checkout of loom: the README quick start tests. */

export const ROOT = path.resolve(import.meta.dirname, "../..");
/** What a checkout of loom holds but a newcomer's does not: their own credentials and state. */
const NOT_IN_A_FRESH_CHECKOUT = new Set([
  ".env",
  ".git",
  "loom.sqlite",
  "loom.sqlite-wal",
  "loom.sqlite-shm",
  "data",
]);

/**
 * The emulator as the quick start's GitHub: no webhook target until the manifest registers one,
 * alice a writer, and the repository acme/widgets with README.md's caller block on its default
 * branch (the quick start's first step), as the newcomer copied it.
 */
export async function startQuickStartGitHub(): Promise<Emulator> {
  const caller = readmeCaller();
  assert.ok(caller !== null, "README.md has the caller block");
  return startEmulator({
    webhookUrl: null,
    permissions: { alice: "write" },
    repos: [
      {
        owner: "acme",
        name: "widgets",
        files: { "README.md": "# widgets\n", ".github/workflows/loom.yml": caller },
      },
    ],
  });
}

/** A checkout of loom in a temp folder (links to this one's files), so `.env` and the SQLite file are its own. */
export async function freshCheckout(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "loom-quick-start-"));
  for (const entry of await readdir(ROOT)) {
    if (!NOT_IN_A_FRESH_CHECKOUT.has(entry)) await symlink(path.join(ROOT, entry), path.join(dir, entry));
  }
  return dir;
}

export type NpmStart = { child: ChildProcess; output: () => string; exited: Promise<number | null> };

/** `npm start`, as typed in the checkout (its own process group, so the whole tree can be stopped). */
export function npmStart(cwd: string): NpmStart {
  const env: Record<string, string> = {
    PATH: process.env["PATH"] ?? "",
    HOME: process.env["HOME"] ?? "/tmp",
  };
  const child = spawn("npm", ["start"], { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let text = "";
  child.stdout?.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
  child.stderr?.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, output: () => text, exited };
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM to npm and the App under it (Ctrl-C's effect), SIGKILL after 15 s; returns once all are gone. */
export async function stop(run: NpmStart): Promise<void> {
  const pid = run.child.pid;
  if (pid === undefined || !groupAlive(pid)) return;
  process.kill(-pid, "SIGTERM");
  for (let attempt = 0; attempt < 150 && groupAlive(pid); attempt++) await sleep(100);
  if (groupAlive(pid)) process.kill(-pid, "SIGKILL");
  for (let attempt = 0; attempt < 50 && groupAlive(pid); attempt++) await sleep(100);
}

/** Polls `url` until `accept(status)`; bounded (300 × 100 ms). */
export async function waitFor(
  url: string,
  accept: (status: number) => boolean,
  run: NpmStart,
): Promise<Response> {
  for (let attempt = 0; attempt < 300; attempt++) {
    if (run.child.exitCode !== null)
      throw new Error(`npm start exited (${run.child.exitCode}):\n${run.output()}`);
    const response = await fetch(url, { redirect: "manual" }).catch(() => null);
    if (response && accept(response.status)) return response;
    await response?.body?.cancel();
    await sleep(100);
  }
  throw new Error(`${url} never answered as expected:\n${run.output()}`);
}

/**
 * Bounded wait (200 × 100 ms) for the emulator to hold check runs named `names` on the pull
 * request's head: `pull.headSha`, or the branch's tip once loom committed on it (the plan file's
 * `IN_PROGRESS-` rename moves the head as soon as the first stage starts).
 */
export async function waitForCheckRuns(
  emulator: Emulator,
  pull: { headSha: string; headRef: string },
  names: string[],
  run: NpmStart,
): Promise<void> {
  let heads: string[] = [pull.headSha];
  for (let attempt = 0; attempt < 200; attempt++) {
    const tip = await emulator.repo().git.readBranch(pull.headRef);
    heads = tip === null || tip === pull.headSha ? [pull.headSha] : [pull.headSha, tip];
    for (const sha of heads) {
      const have = new Set(emulator.state.checkRuns.filter((r) => r.headSha === sha).map((r) => r.name));
      if (names.every((name) => have.has(name))) return;
    }
    await sleep(100);
  }
  const have = emulator.state.checkRuns.map((r) => `${r.name}@${r.headSha.slice(0, 7)}`);
  assert.fail(
    `no check runs ${names.join(", ")} on ${heads.join(" or ")} (have: ${have.join(", ")}):\n${run.output()}`,
  );
}
