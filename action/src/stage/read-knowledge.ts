import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import type { LearningRef, RecordedLearning } from "../../../src/knowledge/learning.ts";
import { learningId } from "../../../src/knowledge/learning-file.ts";
import type { LearningStats } from "../../../src/knowledge/learning-stats.ts";
import { DEFAULT_SELECTED_LEARNINGS, selectLearnings } from "../../../src/knowledge/select-learnings.ts";
import type { Stage } from "../../../src/plan/plan.ts";
import type { SignalKnowledge } from "../../../src/signal/signal-input.ts";
import { optional } from "./optional.ts";

const KNOWLEDGE_DIR = "doc/loom/knowledge";
const KNOWLEDGE_MAX_CHARS = 24_000;

export type ReadKnowledge = {
  knowledge: SignalKnowledge;
  /** The learnings the prompt carries, named for `loom-result` (`learnings_given`). */
  given: LearningRef[];
};

/**
 * The repository's knowledge files (not the learnings log), bounded, and the most relevant
 * learnings (ranked by relevance and by the outcomes in `stats`, from the use records).
 */
export async function readKnowledge(
  workspace: string,
  learnings: readonly RecordedLearning[],
  planId: string,
  stage: Stage,
  stats: ReadonlyMap<string, LearningStats> = new Map(),
): Promise<ReadKnowledge> {
  const chosen = selectLearnings(
    learnings,
    {
      planId,
      stageId: stage.id,
      ...optional("name", stage.name),
      ...optional("description", stage.description),
      files: stage.files,
    },
    DEFAULT_SELECTED_LEARNINGS,
    stats,
  );
  const selected = chosen.map((l) => ({
    category: l.category,
    summary: l.summary,
    detail: l.detail,
    tags: l.tags,
    scope: l.scope,
  }));
  const dir = path.join(workspace, KNOWLEDGE_DIR);
  const entries = await readdir(dir).catch(() => [] as string[]);
  const parts: string[] = [];
  let size = 0;
  for (const name of entries.filter((n) => n.endsWith(".md") && n !== "learnings.md").sort()) {
    const text = (await readFile(path.join(dir, name), "utf8").catch(() => "")).trim();
    if (text === "" || size + text.length > KNOWLEDGE_MAX_CHARS) continue;
    size += text.length;
    parts.push(`### ${KNOWLEDGE_DIR}/${name}\n\n${text}`);
  }
  return {
    knowledge: {
      ...(parts.length === 0 ? {} : { summary: parts.join("\n\n") }),
      ...(selected.length === 0 ? {} : { learnings: selected }),
    },
    given: chosen.map((l) => ({ id: learningId(l), summary: l.summary })),
  };
}
