import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { StopInput } from "../src/artifacts/hook-input.ts";
import type { HookEnv } from "./hook-env.ts";
import { runHook, writeFileAtomic, type HookReply } from "./read-hook-input.ts";

/** Uncommitted changes in the working tree, or null when git cannot tell (then nothing is required). */
export function readUncommitted(cwd: string): string | null {
  try {
    return execFileSync("git", ["status", "--porcelain"], { cwd, encoding: "utf8", timeout: 10_000 }).trim();
  } catch (error) {
    process.stderr.write(
      `loom Stop hook: git status failed, not checking for uncommitted work (${String(error)})\n`,
    );
    return null;
  }
}

function readBlockCount(path: string): number {
  if (!existsSync(path)) return 0;
  const count = Number.parseInt(readFileSync(path, "utf8"), 10);
  return Number.isFinite(count) ? count : 0;
}

/** The reminder to record learnings goes out once: a session with nothing to record may stop. */
const LEARNINGS_ASKED = "learnings-asked";

/** What the session still owes before it may stop. */
export function listMissingWork(cwd: string, env: HookEnv, askForLearnings = true): string[] {
  const missing: string[] = [];
  const status = readUncommitted(cwd);
  if (status !== null && status !== "") {
    const files = status.split("\n").slice(0, 10).join("\n");
    missing.push(
      `Commit your work: there are uncommitted changes (git add + git commit, saying what and why):\n${files}`,
    );
  }
  const learnings = env.LOOM_LEARNINGS_FILE;
  if (
    askForLearnings &&
    learnings !== undefined &&
    (!existsSync(learnings) || statSync(learnings).size === 0)
  ) {
    missing.push(
      `Record what you learned in ${learnings}: one JSON object per line with category, summary, detail, ` +
        "tags, scope and criteria_met, as Recording Learnings in your assignment describes " +
        "(write one line saying there was nothing worth keeping if so).",
    );
  }
  return missing;
}

/**
 * Stop: before the session ends, require committed work and ask (once) for recorded learnings. A
 * circuit breaker (state in `LOOM_STATE_DIR`) blocks at most `LOOM_STOP_MAX_BLOCKS` times, so a
 * session never loops.
 */
export function handleStop(input: StopInput, env: HookEnv, _now: Date): HookReply {
  const statePath = env.LOOM_STATE_DIR === undefined ? null : join(env.LOOM_STATE_DIR, "stop-blocks");
  const blocks = statePath === null ? (input.stop_hook_active ? Infinity : 0) : readBlockCount(statePath);
  if (blocks >= env.LOOM_STOP_MAX_BLOCKS) return { exitCode: 0 };
  const askedPath = env.LOOM_STATE_DIR === undefined ? null : join(env.LOOM_STATE_DIR, LEARNINGS_ASKED);
  const asked = askedPath === null ? input.stop_hook_active : existsSync(askedPath);
  const missing = listMissingWork(input.cwd ?? process.cwd(), env, !asked);
  if (missing.length === 0) return { exitCode: 0 };
  if (statePath !== null) writeFileAtomic(statePath, `${blocks + 1}\n`);
  if (askedPath !== null && missing.some((m) => m.startsWith("Record what you learned")))
    writeFileAtomic(askedPath, "1\n");
  return { exitCode: 2, stderr: `loom: before you stop:\n${missing.map((m) => `- ${m}`).join("\n")}\n` };
}

if (import.meta.main) await runHook("Stop", StopInput, handleStop);
