import { z } from "zod";
import { StageOutcome } from "../artifacts/stage-result.ts";
import { SESSION_KINDS } from "../stage/stage-status.ts";
import { LEARNINGS_DIR } from "./learning-file.ts";

/**
 * One session's use of learnings: which it was given and how the session ended. The publish job
 * writes one file per session that was given any, in `doc/loom/knowledge/learnings/uses/`, in the
 * same commit as the session's new learnings. One file per session, never one shared stats file:
 * stages running side by side then add different paths and their branches merge without conflicts
 * (two branches bumping counters in one file conflict every time). A learning's stats are these
 * records summed (`summarizeLearningUses`).
 */
export const LEARNING_USES_DIR = `${LEARNINGS_DIR}/uses`;

export const LearningUse = z.object({
  version: z.literal(1),
  /** The plan run: `pr-<n>/<plan-id>` (the plan id alone for loom 0.2's branch names). */
  plan_run: z.string().min(1).max(250),
  plan_id: z.string().min(1).max(200),
  stage_id: z.string().min(1).max(200),
  attempt: z.number().int().positive(),
  kind: z.enum(SESSION_KINDS),
  outcome: StageOutcome,
  /** ISO time the publish job recorded it. */
  recorded_at: z.iso.datetime(),
  /** The ids (`learningId`) of the learnings the session's prompt carried, best first. */
  given: z
    .array(z.string().regex(/^[A-Za-z0-9_-]{1,100}$/))
    .min(1)
    .max(20),
});
export type LearningUse = z.infer<typeof LearningUse>;

/** `pr-<n>/<plan-id>` from the stage branch `loom/pr-<n>/<plan-id>/<stage-id>`; the plan id otherwise. */
export function planRunOf(branch: string, planId: string): string {
  const pull = /^loom\/(pr-[1-9][0-9]{0,9})\//.exec(branch)?.[1];
  return pull === undefined ? planId : `${pull}/${planId}`;
}

const safe = (text: string, max: number): string => text.replace(/[^A-Za-z0-9_-]/g, "-").slice(0, max);

/** `…/uses/<time>-<plan>-<stage>-<attempt>-<kind>.json`: sorts by time, unique per session. */
export function learningUsePath(use: LearningUse): string {
  const time = use.recorded_at.replace(/[^0-9]/g, "").slice(0, 14);
  const run = safe(use.plan_run, 60);
  return `${LEARNING_USES_DIR}/${time}-${run}-${safe(use.stage_id, 40)}-${use.attempt}-${use.kind}.json`;
}

/** One line of JSON: readable in a diff and by `git grep`. */
export function renderLearningUse(use: LearningUse): string {
  return `${JSON.stringify(LearningUse.parse(use))}\n`;
}

/** The valid records among lines of JSON (one per use file); anything else is skipped. */
export function parseLearningUses(lines: readonly string[]): LearningUse[] {
  const uses: LearningUse[] = [];
  for (const line of lines) {
    if (!line.trim().startsWith("{")) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue; // A damaged record counts for nothing; the learning keeps its other stats.
    }
    const parsed = LearningUse.safeParse(value);
    if (parsed.success) uses.push(parsed.data);
  }
  return uses;
}
