import path from "node:path";
import type { SessionSandbox } from "../isolation/session-isolation.ts";

/** Longest project folder name Claude Code writes whole (2.1.197: longer ones are cut and hashed). */
const MAX_SLUG_LENGTH = 200;

/** Java's `String.hashCode` over UTF-16 code units, as Claude Code computes it for long folder names. */
function hashPath(text: string): number {
  let hash = 0;
  for (let i = 0; i < text.length; i++) hash = ((hash << 5) - hash + text.charCodeAt(i)) | 0;
  return hash;
}

/**
 * The folder under `<config>/projects/` where Claude Code keeps the sessions of working directory
 * `cwd` (a real path): every character but ASCII letters and digits becomes `-`; a name over 200
 * characters is cut there and gets `-<hash in base 36>`. As Claude Code 2.1.197 does it: `--resume
 * <id>` looks for `<id>.jsonl` only in this folder of its current directory (seen with the pinned
 * binary: a transcript in another project's folder is "not found").
 */
export function makeProjectSlug(cwd: string): string {
  const slug = cwd.replace(/[^a-zA-Z0-9]/g, "-");
  if (slug.length <= MAX_SLUG_LENGTH) return slug;
  return `${slug.slice(0, MAX_SLUG_LENGTH)}-${Math.abs(hashPath(cwd)).toString(36)}`;
}

/**
 * Claude Code's configuration folder for the session: in the sandbox user's HOME when the session
 * runs as that user (`planSpawn` gives it its own HOME and drops `CLAUDE_CONFIG_DIR`), else the
 * session environment's `CLAUDE_CONFIG_DIR` or `~/.claude`.
 */
export function locateClaudeConfigDir(
  sandbox: SessionSandbox | undefined,
  env: Readonly<Record<string, string | undefined>>,
  fallbackHome: string,
): string {
  if (sandbox?.isolation.kind === "user") return path.join(sandbox.home, ".claude");
  return env.CLAUDE_CONFIG_DIR ?? path.join(env.HOME ?? fallbackHome, ".claude");
}

/** Where Claude Code keeps (or looks for) session `sessionId` of working directory `cwd` (a real path). */
export function locateSessionTranscript(configDir: string, cwd: string, sessionId: string): string {
  return path.join(configDir, "projects", makeProjectSlug(cwd), `${sessionId}.jsonl`);
}
