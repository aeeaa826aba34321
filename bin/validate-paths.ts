import { PLAN_LIMITS } from "../src/plan/plan.ts";
import { parsePlan } from "../src/plan/parse-plan.ts";
import { buildValidationReport } from "../src/plan/validation-report.ts";
import type { ValidationReport } from "../src/plan/validation-report.ts";
import type { CliIo } from "./cli-io.ts";

/** A plan file that was read and checked. */
export type CheckedPlan = { path: string; report: ValidationReport };
/** A command-line path that could not be validated: missing, unreadable, or a directory without plans. */
export type UnreadablePath = { path: string; message: string };

export type Validation = {
  checked: CheckedPlan[];
  unreadable: UnreadablePath[];
  /** True when the one argument named a file (not a directory): `--json` then prints one report. */
  singleFile: boolean;
};

/**
 * Reads and checks every plan the arguments name: files as given, directories searched for plan
 * files. Plans come in argument order (a directory's in path order), each once.
 */
export async function validatePaths(paths: readonly string[], io: CliIo): Promise<Validation> {
  const checked: CheckedPlan[] = [];
  const unreadable: UnreadablePath[] = [];
  const seen = new Set<string>();
  let directories = 0;
  for (const path of paths) {
    const kind = await io.statPath(path);
    if (kind.kind === "missing") {
      unreadable.push({ path, message: `cannot read ${path}: ${kind.reason}` });
      continue;
    }
    let files = [path];
    if (kind.kind === "directory") {
      directories++;
      const listing = await io.listPlanFiles(path);
      if (!listing.ok) {
        unreadable.push({ path, message: `cannot read ${listing.path}: ${listing.reason}` });
        continue;
      }
      if (listing.files.length === 0) {
        unreadable.push({
          path,
          message: `no plan files under ${path} (looked for PLAN-*.md, IN_PROGRESS-PLAN-*.md and DONE-PLAN-*.md)`,
        });
        continue;
      }
      files = listing.files;
    }
    for (const file of files.filter((f) => !seen.has(f))) {
      seen.add(file);
      const read = await io.readText(file, PLAN_LIMITS.maxBytes);
      if (read.ok)
        checked.push({ path: file, report: buildValidationReport(file, parsePlan(file, read.text)) });
      else unreadable.push({ path: file, message: `cannot read ${file}: ${read.reason}` });
    }
  }
  return { checked, unreadable, singleFile: paths.length === 1 && directories === 0 };
}
