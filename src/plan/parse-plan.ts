import { computeLevels } from "../graph/compute-levels.ts";
import { checkDependencies } from "./check-dependencies.ts";
import { checkChangeImpact } from "./check-change-impact.ts";
import { checkPlanWarnings } from "./check-plan-warnings.ts";
import { checkReferenceRules } from "./check-reference-rules.ts";
import { checkStageFields } from "./check-stage-fields.ts";
import { checkPlanId, checkStageIds } from "./check-stage-ids.ts";
import { derivePlanId } from "./derive-plan-id.ts";
import type { Diagnostics } from "./diagnostics.ts";
import { createDiagnostics, sortDiagnostics } from "./diagnostics.ts";
import { extractMetadata } from "./extract-metadata.ts";
import { extractPlanName } from "./extract-plan-name.ts";
import { createLineIndex, locateOffset } from "./line-index.ts";
import { PLAN_LIMITS } from "./plan.ts";
import type { PlanResult, Stage } from "./plan.ts";
import { createFastYamlLocator } from "./fast-yaml-locator.ts";
import { isSameData } from "./is-same-data.ts";
import { parseYaml, readYamlDocument, resolveYaml } from "./parse-metadata-yaml.ts";
import { readYamlFast } from "./read-yaml-fast.ts";
import { readLoomDocument } from "./read-loom-document.ts";
import { reportStageKeys } from "./report-unknown-keys.ts";
import { createYamlLocator } from "./yaml-locator.ts";
import type { YamlLocator } from "./yaml-locator.ts";

const FILE_START = { line: 1, column: 1 } as const;

/**
 * Reads a plan file (`path` is only used for the plan id: its file stem) and checks everything
 * DESIGN.md §2 asks, collecting every error and warning with its line and column in the markdown.
 * Never throws: whatever the text, the answer is a `PlanResult`.
 *
 * The yaml is read fast (js-yaml) when it is plain, carefully (the `yaml` library, with positions
 * of every node) otherwise or where a location needs it; `reader: "careful"` skips the fast read.
 * Both give the same answer: tests compare them on the corpus and on mutated plans.
 */
export function parsePlan(path: string, text: string, options: { reader?: "careful" } = {}): PlanResult {
  const id = derivePlanId(String(path));
  try {
    return readPlan(String(path), id, text, options.reader !== "careful");
  } catch (error) {
    // A bug, not a mistake in the plan: still answer with a value so no caller crashes.
    const message = `internal error while reading the plan: ${error instanceof Error ? error.message : String(error)}`;
    return { ok: false, errors: [{ ...FILE_START, message }], warnings: [], plan: { id, name: id } };
  }
}

function readPlan(path: string, id: string, text: string, tryFast: boolean): PlanResult {
  const early = createDiagnostics();
  if (typeof text !== "string") return fail(early, id, id, "the plan is not text");
  if (exceedsUtf8Bytes(text, PLAN_LIMITS.maxBytes)) {
    return fail(
      early,
      id,
      id,
      `the plan file is larger than ${PLAN_LIMITS.maxBytes} bytes (1 MiB), the limit; split it into smaller plans`,
    );
  }
  const heading = extractPlanName(text);
  const name = heading ?? id;
  const startReport = (): Diagnostics => {
    const report = createDiagnostics();
    if (heading === null)
      report.warning('the plan has no "# " heading: it is named after its file', FILE_START);
    checkPlanId(id, report);
    return report;
  };

  const lines = createLineIndex(text);
  const block = extractMetadata(text);
  if (!block.ok) return fail(startReport(), id, name, block.message, locateOffset(lines, block.offset));

  const fast = tryFast ? readYamlFast(block.yaml) : null;
  if (fast) {
    const report = startReport();
    // A location the fast reader cannot give exactly: the `yaml` library reads the text, and when
    // it sees the text differently (an error, a warning, another value) its reading wins.
    const readCarefully = (): YamlLocator => {
      const careful = readYamlDocument(block.yaml);
      if (!careful || !isSameData(careful.value, fast.value)) throw new ReadCarefully();
      return createYamlLocator(careful.doc, block.yamlOffset, lines);
    };
    let slow: YamlLocator | undefined;
    const at = createFastYamlLocator(fast, () => (slow ??= readCarefully()), block.yamlOffset, lines);
    try {
      return checkLoom(fast.value, at, report, { id, name, path });
    } catch (error) {
      if (!(error instanceof ReadCarefully)) throw error;
    }
  }

  const report = startReport();
  const doc = parseYaml(block.yaml, block.yamlOffset, lines, report);
  if (!doc) return finish(report, { id, name }, null);
  const at = createYamlLocator(doc, block.yamlOffset, lines);
  const value = resolveYaml(doc, at, report);
  if (value === undefined) return finish(report, { id, name }, null);
  return checkLoom(value, at, report, { id, name, path });
}

/** Thrown inside a fast read when the `yaml` library must read the plan instead. */
class ReadCarefully extends Error {}

/** Every check on the plain data of the METADATA yaml. */
function checkLoom(
  value: unknown,
  at: YamlLocator,
  report: Diagnostics,
  { id, name, path }: { id: string; name: string; path: string },
): PlanResult {
  const loom = readLoomDocument(value, at, report);
  if (!loom) return finish(report, { id, name }, null);

  for (const entry of loom.entries) {
    reportStageKeys(entry.raw, entry.index, entry.stage.id, at, report);
    checkStageFields(entry, at, report);
  }
  checkReferenceRules(loom.entries, at, report);
  checkStageIds(loom.entries, loom.declaredIds, at, report);
  const { graph, acyclic } = checkDependencies(loom.entries, loom.declaredIds, at, report);
  checkPlanWarnings(loom.entries, acyclic ? computeLevels(graph) : null, at, report);
  checkChangeImpact(loom.settings?.change_impact, at, report);

  const stages = loom.entries.map(({ stage }) => stage);
  if (report.errors.length > 0 || !loom.settings) return finish(report, { id, name }, stages);
  const metadata = { ...loom.settings, version: 1 as const, stages };
  return { ok: true, plan: { id, name, path, metadata, stages }, warnings: sortDiagnostics(report.warnings) };
}

/** Whether `text` takes more than `limit` bytes in UTF-8, counting no further than just past it. */
function exceedsUtf8Bytes(text: string, limit: number): boolean {
  if (text.length > limit) return true;
  // No UTF-16 code unit takes more than 3 bytes (a surrogate pair, 2 units, takes 4): no need to count.
  if (text.length * 3 <= limit) return false;
  let bytes = 0;
  for (let i = 0; i < text.length && bytes <= limit; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code < 0xdc00 && i + 1 < text.length) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes > limit;
}

function fail(
  report: Diagnostics,
  id: string,
  name: string,
  message: string,
  at: { line: number; column: number } = FILE_START,
): PlanResult {
  report.error(message, at);
  return finish(report, { id, name }, null);
}

function finish(report: Diagnostics, plan: { id: string; name: string }, stages: Stage[] | null): PlanResult {
  const errors = sortDiagnostics(report.errors);
  const warnings = sortDiagnostics(report.warnings);
  return stages ? { ok: false, errors, warnings, plan, stages } : { ok: false, errors, warnings, plan };
}
