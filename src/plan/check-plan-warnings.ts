import type { Diagnostics } from "./diagnostics.ts";
import { splitGlob, splitGlobsOverlap } from "./globs-overlap.ts";
import type { SplitGlob } from "./globs-overlap.ts";
import type { Stage } from "./plan.ts";
import type { StageEntry } from "./read-loom-document.ts";
import type { YamlLocator } from "./yaml-locator.ts";

/** Glob pairs compared at most, so a plan of many stages with many globs stays fast. */
const MAX_GLOB_COMPARISONS = 200_000;
const PLACEHOLDER = /^(todo|tbd|wip|fixme|xxx|n\/a|none|tba|\.\.\.|-+|\?+)$/i;
const MIN_DESCRIPTION_WORDS = 4;

/**
 * Shown, never fatal: stages on the same DAG level whose `files` overlap (their branches will
 * likely conflict when merged), stages nothing verifies, vague descriptions, and a plan of
 * several stages without an integration-verify stage.
 */
export function checkPlanWarnings(
  entries: readonly StageEntry[],
  levels: ReadonlyMap<string, number> | null,
  at: YamlLocator,
  report: Diagnostics,
): void {
  for (const entry of entries) {
    warnUnverified(entry, at, report);
    warnVagueDescription(entry, at, report);
  }
  if (levels) warnOverlappingFiles(entries, levels, at, report);
  if (entries.length > 1 && !entries.some(({ stage }) => stage.stage_type === "integration-verify")) {
    report.warning(
      "no integration-verify stage: add a last stage (stage_type: integration-verify) that checks the merged work of all stages together",
      at.key(["loom", "stages"]),
    );
  }
}

/** Goal-backward checks, as the reference CLI counts them. */
export function hasGoalBackwardChecks(stage: Stage): boolean {
  return (
    stage.artifacts.length > 0 ||
    stage.wiring.length > 0 ||
    stage.wiring_tests.length > 0 ||
    stage.dead_code_check !== undefined
  );
}

function warnUnverified({ stage, index }: StageEntry, at: YamlLocator, report: Diagnostics): void {
  if (stage.stage_type !== "standard" && stage.stage_type !== "integration-verify") return;
  if (stage.acceptance.length > 0 || hasGoalBackwardChecks(stage)) return;
  report.warning(
    `stage "${stage.id}" has no acceptance criteria and no goal-backward checks (artifacts, wiring, wiring_tests, dead_code_check): nothing verifies its work`,
    at.value(["loom", "stages", index, "id"]),
    stage.id,
  );
}

function warnVagueDescription({ stage, index }: StageEntry, at: YamlLocator, report: Diagnostics): void {
  const description = stage.description?.trim() ?? "";
  if (description.length === 0) {
    report.warning(
      `stage "${stage.id}" has no description: the session gets only its name as the assignment`,
      at.value(["loom", "stages", index, "id"]),
      stage.id,
    );
    return;
  }
  const words = description.split(/\s+/).length;
  if (words >= MIN_DESCRIPTION_WORDS && !PLACEHOLDER.test(description) && !/\b(TODO|TBD)\b/.test(description))
    return;
  report.warning(
    `stage "${stage.id}" has a vague description ("${description.slice(0, 60)}"): say what to change, where, and how to tell it is done`,
    at.value(["loom", "stages", index, "description"]),
    stage.id,
  );
}

function warnOverlappingFiles(
  entries: readonly StageEntry[],
  levels: ReadonlyMap<string, number>,
  at: YamlLocator,
  report: Diagnostics,
): void {
  const byLevel = new Map<number, StageEntry[]>();
  for (const entry of entries) {
    const level = levels.get(entry.stage.id);
    if (level === undefined || entry.stage.files.length === 0) continue;
    const group = byLevel.get(level);
    if (group) group.push(entry);
    else byLevel.set(level, [entry]);
  }
  // Each glob is split once, not once per pair it is compared in.
  const split = new Map<string, SplitGlob>();
  const splitOnce = (glob: string): SplitGlob => {
    let known = split.get(glob);
    if (!known) split.set(glob, (known = splitGlob(glob)));
    return known;
  };
  let budget = MAX_GLOB_COMPARISONS;
  for (const [level, group] of byLevel) {
    for (let j = 1; j < group.length; j++) {
      const later = group[j]!;
      for (let i = 0; i < j; i++) {
        const earlier = group[i]!;
        budget -= earlier.stage.files.length * later.stage.files.length;
        if (budget < 0) return;
        const overlap = findOverlap(earlier.stage.files, later.stage.files, splitOnce);
        if (!overlap) continue;
        report.warning(
          `stages "${earlier.stage.id}" and "${later.stage.id}" run in parallel (level ${level}) and both touch files matching "${overlap.first}" / "${overlap.second}": expect merge conflicts`,
          at.value(["loom", "stages", later.index, "files", overlap.index]),
          later.stage.id,
        );
      }
    }
  }
}

function findOverlap(
  earlier: readonly string[],
  later: readonly string[],
  splitOnce: (glob: string) => SplitGlob,
): { first: string; second: string; index: number } | null {
  for (const [index, second] of later.entries()) {
    const right = splitOnce(second);
    const first = earlier.find((glob) => splitGlobsOverlap(splitOnce(glob), right));
    if (first !== undefined) return { first, second, index };
  }
  return null;
}
