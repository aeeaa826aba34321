import { execFile, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** A `uses:` pin names a commit this clone does not have (a shallow clone, or a SHA never pushed here). */
export class MissingCommit extends Error {
  override name = "MissingCommit";
}

/**
 * Reads this repository's history as GitHub fetches a pinned `uses:`: a file or a folder at a commit.
 * Shared by every run of the process: one `git archive` per commit, files read once.
 */
export type CommitReader = {
  /** A file's text at `sha`. */
  readFile(sha: string, file: string): Promise<string>;
  /** The folder holding the tree of `sha` (extracted once per process). */
  extractTree(sha: string): Promise<string>;
};

const readers = new Map<string, CommitReader>();

export function createCommitReader(repoRoot: string): CommitReader {
  const known = readers.get(repoRoot);
  if (known) return known;
  const files = new Map<string, Promise<string>>();
  const trees = new Map<string, Promise<string>>();
  let cache: string | null = null;
  const cacheDir = (): string => {
    if (cache === null) {
      const dir = mkdtempSync(path.join(tmpdir(), "loom-uses-"));
      process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
      cache = dir;
    }
    return cache;
  };
  const requireCommit = async (sha: string): Promise<void> => {
    if (!/^[0-9a-f]{40}$/.test(sha)) throw new MissingCommit(`${sha} is not a full commit SHA`);
    try {
      await run("git", ["cat-file", "-e", `${sha}^{commit}`], { cwd: repoRoot });
    } catch (error) {
      const shallow = (await run("git", ["rev-parse", "--is-shallow-repository"], { cwd: repoRoot })).stdout;
      throw new MissingCommit(
        `commit ${sha} is not in ${repoRoot}${shallow.trim() === "true" ? " (a shallow clone: run `git fetch --unshallow`)" : ""}; a \`uses:\` pinned to it cannot be fetched`,
        { cause: error },
      );
    }
  };
  const reader: CommitReader = {
    readFile(sha, file) {
      const key = `${sha}:${file}`;
      let text = files.get(key);
      if (!text) {
        text = requireCommit(sha).then(
          async () => (await run("git", ["show", key], { cwd: repoRoot, maxBuffer: 64 << 20 })).stdout,
        );
        files.set(key, text);
      }
      return text;
    },
    extractTree(sha) {
      let tree = trees.get(sha);
      if (!tree) {
        tree = requireCommit(sha).then(() => {
          const into = path.join(cacheDir(), sha);
          mkdirSync(into, { recursive: true });
          return untar(repoRoot, sha, into).then(() => into);
        });
        trees.set(sha, tree);
      }
      return tree;
    },
  };
  readers.set(repoRoot, reader);
  return reader;
}

/** `git archive <sha> | tar -x -C <into>`. */
function untar(repoRoot: string, sha: string, into: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const archive = spawn("git", ["archive", "--format=tar", sha], {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const tar = spawn("tar", ["-x", "-C", into], { stdio: ["pipe", "ignore", "pipe"] });
    archive.stdout.pipe(tar.stdin);
    const errors: string[] = [];
    archive.stderr.on("data", (chunk: Buffer) => errors.push(chunk.toString("utf8")));
    tar.stderr.on("data", (chunk: Buffer) => errors.push(chunk.toString("utf8")));
    archive.on("error", reject);
    tar.on("error", reject);
    tar.on("close", (code) => {
      if (code === 0 && archive.exitCode === 0) resolve();
      else if (code === 0)
        archive.once("close", (c) =>
          c === 0 ? resolve() : reject(new Error(`git archive ${sha} exited ${c}: ${errors.join("")}`)),
        );
      else reject(new Error(`extracting ${sha} failed: ${errors.join("")}`));
    });
  });
}
