import type { Diagnostics } from "./diagnostics.ts";
import type { Location } from "./plan.ts";
import type { StageEntry } from "./read-loom-document.ts";
import type { YamlLocator } from "./yaml-locator.ts";

const ID_PATTERN = /^[A-Za-z0-9_-]+$/;
export const MAX_STAGE_ID_LENGTH = 128;
/** GitHub label names hold at most 50 characters; the longest stage label is `loom:block:<id>`. */
const LABEL_LIMIT = 50;
const LONGEST_LABEL_PREFIX = "loom:block:";
export const MAX_LABEL_SAFE_ID_LENGTH = LABEL_LIMIT - LONGEST_LABEL_PREFIX.length;
/** Names Windows reserves for devices; the reference CLI refuses them as ids. */
const RESERVED = new Set([
  "con",
  "prn",
  "aux",
  "nul",
  ...[1, 2, 3, 4, 5, 6, 7, 8, 9].flatMap((n) => [`com${n}`, `lpt${n}`]),
]);

/** Problems with one stage id, in words; empty when the id is fine. */
export function describeStageIdProblems(id: string): string[] {
  if (id.length === 0) return ["stage id is empty"];
  if (id.length > MAX_STAGE_ID_LENGTH)
    return [`stage id "${truncate(id)}" is ${id.length} characters; the limit is ${MAX_STAGE_ID_LENGTH}`];
  if (!ID_PATTERN.test(id)) {
    return [
      `stage id "${truncate(id)}" may contain only letters, digits, "-" and "_" (it becomes a branch name, a label and a file name)`,
    ];
  }
  const problems: string[] = [];
  if (RESERVED.has(id.toLowerCase())) problems.push(`stage id "${id}" is a reserved name`);
  if (/^[0-9]{2}-/.test(id)) {
    problems.push(
      `stage id "${id}" starts with "NN-", which the reference CLI uses to number stage files; drop the number prefix`,
    );
  }
  if (id.length > MAX_LABEL_SAFE_ID_LENGTH) {
    problems.push(
      `stage id "${id}" is ${id.length} characters: the label "${LONGEST_LABEL_PREFIX}${id}" would exceed GitHub's ${LABEL_LIMIT}-character limit; use at most ${MAX_LABEL_SAFE_ID_LENGTH}`,
    );
  }
  return problems;
}

/**
 * Every id must be a safe branch component, label and file name; ids must be unique, also
 * ignoring letter case (labels and some file systems do not tell `A` from `a`).
 */
export function checkStageIds(
  entries: readonly StageEntry[],
  declaredIds: ReadonlyMap<string, number[]>,
  at: YamlLocator,
  report: Diagnostics,
): void {
  for (const { stage, index } of entries) {
    for (const problem of describeStageIdProblems(stage.id)) report.error(problem, idAt(at, index), stage.id);
  }
  const byLowerCase = new Map<string, { id: string; index: number }>();
  const ordered = [...declaredIds]
    .flatMap(([id, indexes]) => indexes.map((index) => ({ id, index })))
    .sort((a, b) => a.index - b.index);
  for (const { id, index } of ordered) {
    const first = byLowerCase.get(id.toLowerCase());
    if (!first) {
      byLowerCase.set(id.toLowerCase(), { id, index });
      continue;
    }
    const firstAt = idAt(at, first.index);
    const message =
      first.id === id
        ? `duplicate stage id "${id}" (first defined at line ${firstAt.line})`
        : `stage id "${id}" differs from "${first.id}" (line ${firstAt.line}) only in letter case; labels and branches would clash`;
    report.error(message, idAt(at, index), id);
  }
}

/** The plan id (file stem) becomes part of branch names: `loom/<plan-id>/<stage-id>`. */
export function checkPlanId(planId: string, report: Diagnostics): void {
  const problem = describeRefComponentProblem(planId);
  if (problem)
    report.error(
      `plan id "${planId}" (the file name) cannot be part of a branch name: ${problem}; rename the file`,
      { line: 1, column: 1 },
    );
}

function describeRefComponentProblem(component: string): string | null {
  if (component.length === 0) return "it is empty";
  if ([...component].some((char) => char <= " " || char === "\u007f" || "~^:?*[\\".includes(char)))
    return "it contains a space, a control character or one of ~ ^ : ? * [ \\";
  if (component.includes("..") || component.includes("@{") || component === "@")
    return 'it contains "..", "@{" or is "@"';
  if (component.startsWith(".") || component.endsWith(".") || component.endsWith(".lock"))
    return 'it starts or ends with "." or ends with ".lock"';
  return null;
}

function idAt(at: YamlLocator, index: number): Location {
  return at.value(["loom", "stages", index, "id"]);
}

function truncate(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
