import { findRetiredLearnings, type RetirePolicy } from "../../../src/knowledge/find-retired-learnings.ts";
import type { RecordedLearning } from "../../../src/knowledge/learning.ts";
import {
  LEARNINGS_DIR,
  LEARNINGS_RETIRED_DIR,
  learningId,
  renderRetiredLearningFile,
} from "../../../src/knowledge/learning-file.ts";
import { summarizeLearningUses } from "../../../src/knowledge/learning-stats.ts";
import type { LearningUse } from "../../../src/knowledge/learning-use.ts";
import { readLearningUses } from "../knowledge/read-learning-uses.ts";

/** A learning file on the branch: its path, its text and the learnings it holds. */
export type LearningFileAt = { path: string; text: string; learnings: RecordedLearning[] };

/** One learning file to move: from `from` to `to` (under `retired/`), with its new text. */
export type RetiredFile = { from: string; to: string; id: string; reason: string; text: string };

/**
 * The learning files on `rev` to retire, given the use records on `rev` plus `use` (this
 * session's, not committed yet). Only files directly in `learnings/` holding one learning are
 * retired; `learnings.md` is a person's file and stays as it is.
 */
export async function retireLearningsAt(
  cwd: string,
  rev: string,
  files: readonly LearningFileAt[],
  use: LearningUse | undefined,
  policy: RetirePolicy,
): Promise<RetiredFile[]> {
  const uses = [...(await readLearningUses(cwd, rev)), ...(use === undefined ? [] : [use])];
  const byId = new Map<string, LearningFileAt>();
  for (const file of files) {
    const learning = file.learnings[0];
    if (file.learnings.length !== 1 || learning === undefined) continue;
    if (file.path.slice(LEARNINGS_DIR.length + 1).includes("/")) continue;
    byId.set(learningId(learning), file);
  }
  const candidates = [...byId].map(([id, file]) => ({
    id,
    plan_id: file.learnings[0]?.plan_id ?? "",
    recorded_at: file.learnings[0]?.recorded_at ?? "",
  }));
  return findRetiredLearnings(candidates, uses, summarizeLearningUses(uses), policy).flatMap(
    ({ id, reason }) => {
      const file = byId.get(id);
      if (file === undefined) return [];
      const name = file.path.slice(LEARNINGS_DIR.length + 1);
      return [
        {
          from: file.path,
          to: `${LEARNINGS_RETIRED_DIR}/${name}`,
          id,
          reason,
          text: renderRetiredLearningFile(file.text, reason),
        },
      ];
    },
  );
}
