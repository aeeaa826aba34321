import { RecordedLearning } from "./learning.ts";

/**
 * Learnings live one per file under `doc/loom/knowledge/learnings/`, each created once by the
 * publish job and never changed. Stages running side by side then add different paths, so their
 * branches merge into the plan's branch without conflicts (appending blocks to one
 * `learnings.md` from two branches is a textual conflict in git every time).
 *
 * A file is readable markdown whose first line carries the learning as JSON inside an HTML
 * comment, so the parser never has to read the prose back:
 *
 *     <!-- loom-learning v1 {"category":"mistake",...} -->
 *     # mistake: <summary>
 *     <detail>
 *     Tags: … · Scope: … · Stage … of plan …, attempt N, <date>.
 *
 * The same marker lines are also read from `doc/loom/knowledge/learnings.md`, so a person (or a
 * knowledge-distill stage allowed to edit knowledge) may gather learnings into that file.
 */
export const LEARNINGS_DIR = "doc/loom/knowledge/learnings";
export const LEARNINGS_LOG = "doc/loom/knowledge/learnings.md";

/**
 * Retired learnings: moved here by the publish job (`findRetiredLearnings`) with the reason
 * appended, so they stay in the repository and its history but are no longer given to sessions.
 */
export const LEARNINGS_RETIRED_DIR = `${LEARNINGS_DIR}/retired`;

const MARKER = /^<!-- loom-learning v1 (\{.*\}) -->$/;

/** FNV-1a, 32 bits, as 8 hex digits: a stable short name part (src/ has no crypto). */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

/** `doc/loom/knowledge/learnings/<date>-<stage>-<hash>.md`: sorts by date, names the stage. */
export function learningFilePath(learning: RecordedLearning): string {
  const date = learning.recorded_at.slice(0, 10);
  const stage = learning.stage_id.replace(/[^A-Za-z0-9_-]/g, "-").slice(0, 40);
  const hash = fnv1a(`${learning.plan_id}\n${learning.stage_id}\n${learning.summary}\n${learning.detail}`);
  return `${LEARNINGS_DIR}/${date}-${stage}-${hash}.md`;
}

/**
 * A learning's id: the stem of its file name (`<date>-<stage>-<hash>`). It depends only on what
 * the learning says and where it came from, so a learning a person moved into `learnings.md` keeps
 * the id it had as a file, and its use records still count.
 */
export function learningId(learning: RecordedLearning): string {
  return learningFilePath(learning).slice(LEARNINGS_DIR.length + 1, -".md".length);
}

/** JSON that cannot end the HTML comment it sits in (`>` and `<` escaped inside strings). */
function embedJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/>/g, "\\u003e");
}

export function renderLearningFile(learning: RecordedLearning): string {
  const recorded = RecordedLearning.parse(learning);
  const tags = recorded.tags.map((tag) => `\`${tag}\``).join(", ");
  return [
    `<!-- loom-learning v1 ${embedJson(recorded)} -->`,
    `# ${recorded.category}: ${recorded.summary}`,
    "",
    recorded.detail,
    "",
    `Tags: ${tags} · Scope: \`${recorded.scope.replace(/`/g, "'")}\` · Criteria met: ${recorded.criteria_met.join(", ")}`,
    `Recorded by stage \`${recorded.stage_id}\` of plan \`${recorded.plan_id}\`, attempt ${recorded.attempt}, ${recorded.recorded_at}.`,
    "",
  ].join("\n");
}

/** Every valid learning marker line in a text (a learning file or `learnings.md`); others are skipped. */
export function parseLearningFile(text: string): RecordedLearning[] {
  const found: RecordedLearning[] = [];
  for (const line of text.split(/\r?\n/)) {
    const json = MARKER.exec(line.trim())?.[1];
    if (json === undefined) continue;
    let value: unknown;
    try {
      value = JSON.parse(json);
    } catch {
      continue; // A damaged marker is prose to us: the file stays, its learning is not injected.
    }
    const parsed = RecordedLearning.safeParse(value);
    if (parsed.success) found.push(parsed.data);
  }
  return found;
}

/**
 * A retired learning's file: the original text, untouched, and the reason below it. Depends on
 * nothing but the two, so two branches that retire the same learning write the same file.
 */
export function renderRetiredLearningFile(original: string, reason: string): string {
  const text = original.endsWith("\n") ? original : `${original}\n`;
  return `${text}\n> **Retired by loom:** ${reason}. Kept for the record; loom no longer gives it to sessions.\n`;
}
