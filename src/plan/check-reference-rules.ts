import { checkSandboxConfig } from "./check-sandbox-config.ts";
import type { Diagnostics } from "./diagnostics.ts";
import type { StageEntry } from "./read-loom-document.ts";
import { describeUnsafePath } from "./unsafe-path.ts";
import type { YamlLocator, YamlPath } from "./yaml-locator.ts";

/** The reference's limits (`loom/src/plan/schema/validation.rs`). */
export const REFERENCE_LIMITS = { artifacts: 100, truthChecks: 20, truthCheckCommandBytes: 500 } as const;

const utf8 = new TextEncoder();

/**
 * The rules of the reference's `validate()` that loom's schema does not already hold, each at its
 * line: errors where the reference refuses the plan (bug_fix and regression_test go together, a
 * regression test names a file and what it must contain, implementers name each lane once,
 * truth-check and artifact limits, sandbox globs and domains), warnings where loom is more lenient
 * (wiring checks without a description, wiring tests without a name, a leaf stage whose artifacts
 * nothing checks are wired in).
 */
export function checkReferenceRules(
  entries: readonly StageEntry[],
  at: YamlLocator,
  report: Diagnostics,
): void {
  for (const entry of entries) {
    const path = ["loom", "stages", entry.index] as const;
    const id = entry.stage.id;
    const fail = (message: string, where: YamlPath): void =>
      report.error(`stage "${id}": ${message}`, at.value([...path, ...where]), id);
    const warn = (message: string, where: YamlPath): void =>
      report.warning(`stage "${id}": ${message}`, at.value([...path, ...where]), id);
    checkBugFix(entry, fail);
    checkImplementers(entry, fail);
    checkTruthChecks(entry, fail);
    if (entry.stage.artifacts.length > REFERENCE_LIMITS.artifacts)
      fail(`too many artifacts (${entry.stage.artifacts.length}, max ${REFERENCE_LIMITS.artifacts})`, [
        "artifacts",
      ]);
    if (entry.raw["sandbox"] !== undefined)
      checkSandboxConfig(entry.raw["sandbox"], [...path, "sandbox"], at, report, id);
    entry.stage.wiring.forEach((wiring, i) => {
      if ((wiring.description ?? "").trim() === "")
        warn(`wiring #${i + 1} has no description: say what it proves (the reference CLI requires one)`, [
          "wiring",
          i,
        ]);
    });
    entry.stage.wiring_tests.forEach((test, i) => {
      if ((test.name ?? "").trim() === "")
        warn(`wiring_tests #${i + 1} has no name (the reference CLI requires one)`, ["wiring_tests", i]);
    });
  }
  warnUnwiredLeaves(entries, at, report);
}

type Fail = (message: string, where: YamlPath) => void;

function checkBugFix({ stage, raw }: StageEntry, fail: Fail): void {
  const test = stage.regression_test;
  // A regression_test of the wrong shape was reported by the schema: it is there, only unreadable.
  if (stage.bug_fix === true && raw["regression_test"] === undefined)
    fail("bug_fix stages must define a regression_test with a file and must_contain patterns", ["bug_fix"]);
  if (test === undefined) return;
  if (stage.bug_fix !== true)
    fail("regression_test is set but bug_fix is not true: regression tests accompany bug_fix: true", [
      "regression_test",
    ]);
  if (test.file.trim() === "") fail("regression_test.file cannot be empty", ["regression_test", "file"]);
  else {
    const problem = describeUnsafePath(test.file, stage.working_dir);
    if (problem) fail(`regression_test.file "${test.file}" ${problem}`, ["regression_test", "file"]);
  }
  if ((test.must_contain ?? []).length === 0)
    fail("regression_test.must_contain must have at least one pattern", ["regression_test"]);
}

function checkImplementers({ stage }: StageEntry, fail: Fail): void {
  const lanes = stage.implementers;
  if (lanes === undefined) return;
  if (lanes.length === 0)
    fail(
      "implementers cannot be an empty list: leave it out for the default [claude], or name the lanes this stage may use",
      ["implementers"],
    );
  lanes.forEach((lane, i) => {
    if (lanes.indexOf(lane) !== i)
      fail(
        `implementers lists ${lane} more than once: each lane may appear once (the order says which one routine work prefers)`,
        ["implementers", i],
      );
  });
}

function checkTruthChecks({ stage }: StageEntry, fail: Fail): void {
  for (const kind of ["before_stage", "after_stage"] as const) {
    const checks = stage[kind];
    if (checks.length > REFERENCE_LIMITS.truthChecks)
      fail(`too many ${kind} checks (${checks.length}, max ${REFERENCE_LIMITS.truthChecks})`, [kind]);
    checks.forEach((check, i) => {
      const where = [kind, i, "command"];
      const bytes = utf8.encode(check.command).length;
      if (check.command.trim() === "") fail(`${kind} check #${i + 1} command cannot be empty`, where);
      else if (bytes > REFERENCE_LIMITS.truthCheckCommandBytes)
        fail(
          `${kind} check #${i + 1} command too long (${bytes} bytes, max ${REFERENCE_LIMITS.truthCheckCommandBytes})`,
          where,
        );
    });
  }
}

/**
 * A standard stage with artifacts, no wiring checks of its own, no stage after it and no
 * integration-verify stage with wiring checks: nothing checks its artifacts are used. The reference
 * refuses it; loom runs it and says so.
 */
function warnUnwiredLeaves(entries: readonly StageEntry[], at: YamlLocator, report: Diagnostics): void {
  const wired = ({ stage }: StageEntry): boolean => stage.wiring.length > 0 || stage.wiring_tests.length > 0;
  if (entries.some((entry) => entry.stage.stage_type === "integration-verify" && wired(entry))) return;
  const depended = new Set(entries.flatMap(({ stage }) => stage.dependencies));
  for (const entry of entries) {
    const { stage } = entry;
    if (
      stage.stage_type !== "standard" ||
      stage.artifacts.length === 0 ||
      wired(entry) ||
      depended.has(stage.id)
    )
      continue;
    report.warning(
      `stage "${stage.id}" has artifacts but no wiring or wiring_tests, and no later stage checks they are wired in: add wiring checks or a stage that verifies the integration (the reference CLI refuses such a leaf stage)`,
      at.key(["loom", "stages", entry.index, "artifacts"]),
      stage.id,
    );
  }
}
