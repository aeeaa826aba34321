import { spawn } from "node:child_process";

/** A git object's type and raw content (a blob's bytes, a commit's headers and message). */
export type GitObject = { oid: string; type: string; content: Buffer };

/**
 * Reads objects by id with one `git cat-file --batch` (no shell, no checkout config that runs code:
 * cat-file runs no hooks, filters or textconv). Missing objects are left out.
 */
export function readObjects(cwd: string, oids: readonly string[]): Promise<GitObject[]> {
  if (oids.length === 0) return Promise.resolve([]);
  return new Promise((resolve, reject) => {
    const child = spawn("git", ["cat-file", "--batch"], {
      cwd,
      env: { ...process.env, GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const chunks: Buffer[] = [];
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.on("error", (error) => reject(new Error(`git cat-file could not run in ${cwd}`, { cause: error })));
    child.on("close", (code) => {
      if (code !== 0) {
        reject(new Error(`git cat-file --batch exited ${code}: ${stderr.trim().slice(0, 500)}`));
        return;
      }
      resolve(parseBatch(Buffer.concat(chunks)));
    });
    child.stdin.end(`${oids.join("\n")}\n`);
  });
}

/** `<oid> <type> <size>\n<content>\n` records, or `<oid> missing\n`. */
function parseBatch(out: Buffer): GitObject[] {
  const objects: GitObject[] = [];
  let at = 0;
  while (at < out.length) {
    const eol = out.indexOf(0x0a, at);
    if (eol === -1) break;
    const [oid = "", type = "", size] = out.subarray(at, eol).toString("utf8").split(" ");
    at = eol + 1;
    if (size === undefined) continue; // `<oid> missing`
    const length = Number(size);
    objects.push({ oid, type, content: out.subarray(at, at + length) });
    at += length + 1;
  }
  return objects;
}
