import {
  LEARNING_USES_DIR,
  parseLearningUses,
  type LearningUse,
} from "../../../src/knowledge/learning-use.ts";
import { runGit } from "../git/run-git.ts";

/** Use records read at most: the newest (their file names start with the time). */
export const MAX_LEARNING_USES = 50_000;

/**
 * The learning use records on `rev` (`doc/loom/knowledge/learnings/uses/*.json`, one JSON line
 * each), read with one `git grep` rather than a process per file. Damaged records are skipped;
 * none (no folder yet, or not a git checkout) is an empty list: ranking and retirement then go by
 * relevance alone.
 */
export async function readLearningUses(cwd: string, rev: string): Promise<LearningUse[]> {
  // Rejects only when git cannot start here (no git, or `cwd` is gone: `loom prompt --repo` of a
  // folder that does not exist): no records then, as outside a repository.
  const grep = await runGit(cwd, [
    "grep",
    "-h",
    "-I",
    "--no-color",
    "--no-line-number",
    "-e",
    "",
    rev,
    "--",
    `${LEARNING_USES_DIR}/*.json`,
  ]).catch(() => null);
  if (grep === null || grep.code !== 0) return [];
  return parseLearningUses(grep.stdout.split("\n").slice(-MAX_LEARNING_USES));
}
