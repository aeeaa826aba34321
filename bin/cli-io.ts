import { open, readdir, stat } from "node:fs/promises";
import path from "node:path";
import { isPlanPath } from "../src/plan/discover-plan-paths.ts";

/** What a path on the command line names. */
export type PathKind = { kind: "file" } | { kind: "directory" } | { kind: "missing"; reason: string };

export type PlanListing = { ok: true; files: string[] } | { ok: false; path: string; reason: string };

/** What the CLI needs from the outside world; tests pass a fake. */
export type CliIo = {
  /** Reads a file as UTF-8, at most `maxBytes + 1` bytes (enough to tell it is too large). */
  readText(
    path: string,
    maxBytes: number,
  ): Promise<{ ok: true; text: string } | { ok: false; reason: string }>;
  /** Whether `path` is a file, a directory, or cannot be read (with the reason). */
  statPath(path: string): Promise<PathKind>;
  /** The plan files under a directory, recursively, sorted (see `findPlanFiles`). */
  listPlanFiles(dir: string): Promise<PlanListing>;
  stdout(text: string): void;
  stderr(text: string): void;
};

export function createNodeIo(): CliIo {
  return {
    readText: readTextFile,
    statPath,
    listPlanFiles: findPlanFiles,
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
  };
}

/** Directories never searched for plans: git's own data and installed packages. */
const SKIPPED_DIRECTORIES = new Set([".git", "node_modules"]);
/** A bound on the walk, so a huge or looping tree cannot keep `loom validate` busy forever. */
const MAX_DIRECTORIES = 20_000;

/**
 * Plan files (`PLAN-*.md`, `IN_PROGRESS-PLAN-*.md`, `DONE-PLAN-*.md`, as the App discovers them in
 * a pull request) anywhere under `dir`, sorted. Symbolic links to directories are not followed;
 * `.git` and `node_modules` are skipped.
 */
export async function findPlanFiles(dir: string): Promise<PlanListing> {
  const found: string[] = [];
  const pending = [dir];
  for (let visited = 0; pending.length > 0 && visited < MAX_DIRECTORIES; visited++) {
    const current = pending.pop() ?? dir;
    let entries;
    try {
      entries = await readdir(current, { withFileTypes: true });
    } catch (error) {
      return { ok: false, path: current, reason: describeFsError(error) };
    }
    for (const entry of entries) {
      const child = path.join(current, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRECTORIES.has(entry.name)) pending.push(child);
      } else if (isPlanPath(entry.name) && (entry.isFile() || (await isFileBehindLink(child)))) {
        found.push(child);
      }
    }
  }
  return { ok: true, files: found.sort() };
}

/** A symbolic link to a plan file counts; a dangling or unreadable link does not. */
async function isFileBehindLink(file: string): Promise<boolean> {
  const info = await stat(file).catch(() => null);
  return info?.isFile() ?? false;
}

async function statPath(file: string): Promise<PathKind> {
  try {
    const info = await stat(file);
    return info.isDirectory() ? { kind: "directory" } : { kind: "file" };
  } catch (error) {
    return { kind: "missing", reason: describeFsError(error) };
  }
}

async function readTextFile(
  path: string,
  maxBytes: number,
): Promise<{ ok: true; text: string } | { ok: false; reason: string }> {
  let handle;
  try {
    handle = await open(path, "r");
    const stat = await handle.stat();
    if (!stat.isFile()) return { ok: false, reason: "not a regular file" };
    const buffer = Buffer.alloc(Math.min(stat.size, maxBytes + 1));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return { ok: true, text: buffer.subarray(0, bytesRead).toString("utf8") };
  } catch (error) {
    return { ok: false, reason: describeFsError(error) };
  } finally {
    await handle?.close();
  }
}

function describeFsError(error: unknown): string {
  const code = error instanceof Error && "code" in error ? String(error.code) : "";
  if (code === "ENOENT") return "no such file or directory";
  if (code === "EACCES") return "permission denied";
  return error instanceof Error ? error.message : String(error);
}
