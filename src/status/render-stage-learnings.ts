import type { PlanState, StageState } from "../orchestrator/state.ts";
import { escapeCell } from "./format-status.ts";

/** What the stage's sessions were given and added, counted over the plan for the status comment. */
export type LearningCounts = { deviations: number; learningsAdded: number; learningsGiven: number };

/** The learnings the stage's sessions were given: each once (by id), with the attempts that got it. */
function listGiven(stage: StageState): string[] {
  const given = new Map<string, { summary: string; attempts: number[] }>();
  for (const session of stage.sessions) {
    for (const learning of session.report?.learningsGiven ?? []) {
      const seen = given.get(learning.id) ?? { summary: learning.summary, attempts: [] };
      if (!seen.attempts.includes(session.attempt)) seen.attempts.push(session.attempt);
      given.set(learning.id, seen);
    }
  }
  return [...given].map(
    ([id, { summary, attempts }]) =>
      `- ${escapeCell(summary, 200)} (\`${escapeCell(id, 100)}\`, attempt ${attempts.join(", ")})`,
  );
}

/** The learnings the stage's sessions added: by summary when the report kept them, else a count. */
function listAdded(stage: StageState): string[] {
  return stage.sessions.flatMap((s) => {
    const report = s.report;
    if (report === undefined || report.learningsAdded === 0) return [];
    const summaries = report.learningsAddedSummaries;
    if (summaries === undefined) return [`- attempt ${s.attempt}: ${report.learningsAdded} learning(s)`];
    return summaries.map((summary) => `- attempt ${s.attempt}: ${escapeCell(summary, 200)}`);
  });
}

/**
 * The stage check run's "Learnings given" (what the prompts carried, from
 * `doc/loom/knowledge/learnings/`) and "Learnings added" (what the sessions recorded, committed by
 * the publish job) lists; nothing when both are empty.
 */
export function renderStageLearnings(stage: StageState): string[] {
  const given = listGiven(stage);
  const added = listAdded(stage);
  const lines: string[] = [];
  if (given.length > 0) lines.push(`### Learnings given (${given.length})`, "", ...given);
  if (added.length > 0)
    lines.push(...(lines.length > 0 ? [""] : []), `### Learnings added (${added.length})`, "", ...added);
  return lines;
}

/** Deviations declared, learnings added and learnings given (distinct per stage) over the plan's sessions. */
export function countPlanLearnings(state: PlanState): LearningCounts {
  const counts: LearningCounts = { deviations: 0, learningsAdded: 0, learningsGiven: 0 };
  for (const stage of Object.values(state.stages)) {
    const given = new Set<string>();
    for (const session of stage.sessions) {
      counts.deviations += session.report?.deviations.length ?? 0;
      counts.learningsAdded += session.report?.learningsAdded ?? 0;
      for (const learning of session.report?.learningsGiven ?? []) given.add(learning.id);
    }
    counts.learningsGiven += given.size;
  }
  return counts;
}

/** `**Deviations:** 2 · **Learnings:** 3 added, 5 given` for the status comment, or nothing before any. */
export function renderPlanLearnings(state: PlanState): string[] {
  const c = countPlanLearnings(state);
  if (c.deviations + c.learningsAdded + c.learningsGiven === 0) return [];
  return [
    `**Deviations:** ${c.deviations} · **Learnings:** ${c.learningsAdded} added, ${c.learningsGiven} given (see each stage's check run)`,
    "",
  ];
}
