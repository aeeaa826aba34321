import { detectStageType } from "./detect-stage-type.ts";
import { findClosestName } from "./find-closest-name.ts";
import { isRecord } from "./is-record.ts";
import type { Diagnostics } from "./diagnostics.ts";
import { describeZodIssues } from "./describe-zod-issues.ts";
import { LoomMetadata, PLAN_LIMITS, Stage } from "./plan.ts";
import type { YamlLocator } from "./yaml-locator.ts";
import { reportPlanKeys } from "./report-unknown-keys.ts";
import { checkSandboxConfig } from "./check-sandbox-config.ts";
import { dropAbsentNulls } from "./drop-absent-nulls.ts";

/**
 * A stage with its position in the list and the yaml it came from: one that passed the schema, or
 * one that failed it (already reported) read without its bad fields, so the other checks still run.
 */
export type StageEntry = { index: number; stage: Stage; raw: Record<string, unknown> };

export type LoomDocument = {
  /** The plan-level settings (everything but `version` and `stages`), when they are valid. */
  settings: Omit<LoomMetadata, "version" | "stages"> | null;
  /** Stages with a text id, in plan order (those failing the schema without their bad fields). */
  entries: StageEntry[];
  /** Every string id written in the stage list, valid stage or not, with its indexes. */
  declaredIds: Map<string, number[]>;
};

const RestOfLoom = LoomMetadata.omit({ version: true, stages: true });

/**
 * Reads the METADATA yaml value: `loom:` with `version: 1` and a list of stages, each checked
 * against the stage schema. Reports what is wrong and keeps going; returns null only when there
 * is no `loom:` mapping to read at all.
 */
export function readLoomDocument(value: unknown, at: YamlLocator, report: Diagnostics): LoomDocument | null {
  if (!isRecord(value)) {
    report.error("the METADATA yaml must be a mapping that starts with `loom:`", at.value([]));
    return null;
  }
  for (const key of Object.keys(value)) {
    if (key !== "loom") report.warning(`unknown key "${key}" next to \`loom:\` is ignored`, at.key([key]));
  }
  const written = value["loom"];
  if (!isRecord(written)) {
    const near = "loom" in value ? null : findClosestName("loom", Object.keys(value));
    if (near !== null) {
      report.error(
        `the METADATA yaml has no \`loom:\` key (did you mean \`loom:\` for \`${near}:\`?)`,
        at.key([near]),
      );
    } else {
      report.error(
        "loom" in value
          ? "`loom:` must be a mapping with `version` and `stages`"
          : "the METADATA yaml has no `loom:` key",
        at.value(["loom"]),
      );
    }
    return null;
  }
  const loom = dropAbsentNulls(written);
  checkVersion(loom, at, report);
  const rest = RestOfLoom.safeParse(loom);
  if (!rest.success) {
    for (const issue of describeZodIssues(RestOfLoom, loom, rest.error.issues, "loom.")) {
      report.error(issue.message, at.value(["loom", ...issue.path]));
    }
  }
  reportPlanKeys(loom, at, report);
  if (loom["sandbox"] !== undefined) checkSandboxConfig(loom["sandbox"], ["loom", "sandbox"], at, report);
  const stages = readStages(loom, at, report);
  return { settings: rest.success ? rest.data : null, ...stages };
}

function checkVersion(loom: Record<string, unknown>, at: YamlLocator, report: Diagnostics): void {
  if (!("version" in loom)) {
    report.error("`loom:` has no `version`: add `version: 1`", at.key(["loom"]));
  } else if (loom["version"] !== 1) {
    report.error(
      `unsupported version ${JSON.stringify(loom["version"]) ?? "null"}: loom reads version 1 plans`,
      at.value(["loom", "version"]),
    );
  }
}

function readStages(
  loom: Record<string, unknown>,
  at: YamlLocator,
  report: Diagnostics,
): Omit<LoomDocument, "settings"> {
  const result: Omit<LoomDocument, "settings"> = { entries: [], declaredIds: new Map() };
  const list = loom["stages"];
  if (!Array.isArray(list)) {
    const where = "stages" in loom ? at.value(["loom", "stages"]) : at.key(["loom"]);
    report.error(
      "stages" in loom ? "`stages` must be a list of stages" : "`loom:` has no `stages` list",
      where,
    );
    return result;
  }
  if (list.length === 0) {
    report.error("the plan has no stages: `stages` is empty", at.key(["loom", "stages"]));
    return result;
  }
  if (list.length > PLAN_LIMITS.maxStages) {
    report.error(
      `the plan has ${list.length} stages; loom runs at most ${PLAN_LIMITS.maxStages} stages per plan`,
      at.key(["loom", "stages"]),
    );
    return result;
  }
  list.forEach((raw: unknown, index) => {
    const path = ["loom", "stages", index];
    if (!isRecord(raw)) {
      report.error(`stage #${index + 1} must be a mapping with at least \`id\` and \`name\``, at.value(path));
      return;
    }
    const id = typeof raw["id"] === "string" ? raw["id"] : undefined;
    if (id !== undefined) result.declaredIds.set(id, [...(result.declaredIds.get(id) ?? []), index]);
    const parsed = Stage.safeParse(raw);
    if (!parsed.success) {
      const label = id === undefined ? `stage #${index + 1}` : `stage "${id}"`;
      for (const issue of describeZodIssues(Stage, raw, parsed.error.issues)) {
        report.error(`${label}: ${issue.message}`, at.value([...path, ...issue.path]), id);
      }
    }
    const stage = parsed.success ? parsed.data : salvageStage(raw, parsed.error.issues);
    if (!stage) return;
    if (!("stage_type" in raw)) stage.stage_type = detectStageType(stage.id, stage.name);
    result.entries.push({ index, stage, raw });
  });
  return result;
}

/**
 * A stage that failed the schema, read without its bad fields (their defaults instead), so the
 * checks that do not depend on them (dependencies, cycles, paths, commands) still run in the same
 * pass. A stage without a text `id` cannot be salvaged: nothing could refer to it.
 */
function salvageStage(
  raw: Record<string, unknown>,
  issues: readonly { path: PropertyKey[] }[],
): Stage | null {
  if (typeof raw["id"] !== "string") return null;
  const bad = new Set(issues.map((issue) => issue.path[0]));
  const kept = Object.fromEntries(Object.entries(raw).filter(([key]) => !bad.has(key)));
  if (!("name" in kept)) kept["name"] = raw["id"];
  const salvaged = Stage.safeParse(kept);
  return salvaged.success ? salvaged.data : null;
}
