import { readdir } from "node:fs/promises";
import path from "node:path";
import type { RecordedLearning } from "../../../src/knowledge/learning.ts";
import { LEARNINGS_DIR, LEARNINGS_LOG, parseLearningFile } from "../../../src/knowledge/learning-file.ts";
import { readFileHead } from "./read-file-head.ts";

/** Learning files read at most (newest names first: they start with the date). */
export const MAX_LEARNING_FILES = 2000;
const MAX_FILE_BYTES = 64 * 1024;
const MAX_LOG_BYTES = 4 * 1024 * 1024;

/** Unreadable, missing or not a regular file (a symlink to a device): no learnings from it. */
function readBounded(file: string, max: number): Promise<string> {
  return readFileHead(file, max).catch(() => "");
}

/** The learnings a checkout holds: `doc/loom/knowledge/learnings/*.md` and `learnings.md`. */
export async function readRepoLearnings(workspace: string): Promise<RecordedLearning[]> {
  const dir = path.join(workspace, LEARNINGS_DIR);
  const names = (await readdir(dir).catch(() => [] as string[]))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .reverse()
    .slice(0, MAX_LEARNING_FILES);
  const learnings: RecordedLearning[] = [];
  for (const name of names)
    learnings.push(...parseLearningFile(await readBounded(path.join(dir, name), MAX_FILE_BYTES)));
  learnings.push(...parseLearningFile(await readBounded(path.join(workspace, LEARNINGS_LOG), MAX_LOG_BYTES)));
  return learnings;
}
