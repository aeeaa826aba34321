import type { Diagnostics } from "./diagnostics.ts";
import {
  AcceptanceCheck,
  DeadCodeCheck,
  LoomMetadata,
  Stage,
  SuccessCriteria,
  TruthCheck,
  WiringCheck,
  WiringTest,
} from "./plan.ts";
import { findClosestName } from "./find-closest-name.ts";
import { isRecord } from "./is-record.ts";
import type { Location } from "./plan.ts";
import type { YamlLocator } from "./yaml-locator.ts";

/** Stage keys the reference CLI knows that do nothing on GitHub, with the reason. */
const IGNORED_STAGE_KEYS: Readonly<Record<string, string>> = {
  execution_backend: "stages run on GitHub Actions runners",
  terminal_backend: "no terminal windows are opened on GitHub",
  ultracode: "sessions run headless on GitHub Actions",
  context_ceiling_tokens: "use `context_budget` (percent) to bound a session's context",
  plan_overview: "not used here",
  skills: "not used here",
  contracts: "not used here",
  harness: "not used here",
  reachable: "not used here",
};

/** Plan-level keys the reference CLI knows that do nothing on GitHub. */
const IGNORED_PLAN_KEYS: Readonly<Record<string, string>> = {
  change_impact: "not used here",
  adjudication: "criteria amendments are not made here",
  context_ceiling_tokens: "use a stage's `context_budget` (percent)",
  subagent_ceiling_tokens: "not used here",
  ratchet_files: "not used here",
  terminal_backend: "no terminal windows are opened on GitHub",
};

const STAGE_KEYS = new Set(Object.keys(Stage.shape));
const PLAN_KEYS = new Set(Object.keys(LoomMetadata.shape));

/** Other tools' names for a stage key; written in a plan, they surely meant the loom key. */
const STAGE_KEY_ALIASES: Readonly<Record<string, string>> = {
  depends_on: "dependencies",
  depends: "dependencies",
  deps: "dependencies",
  needs: "dependencies",
  requires: "dependencies",
  acceptance_criteria: "acceptance",
};

/**
 * The key an unknown `key` most likely misspells, when it is close to a key loom uses (or an
 * alias of one) and that key is not also written in the same mapping. Such a key is an error, not
 * a warning: as written it is dropped, and a dropped `dependencies` would run a stage before the
 * work it needs, a dropped `acceptance` would check nothing.
 */
export function findMisspeltKey(
  key: string,
  known: ReadonlySet<string>,
  written: Record<string, unknown>,
  aliases: Readonly<Record<string, string>> = {},
): { meant: string; alsoWritten: boolean } | null {
  const meant = aliases[key.toLowerCase().replaceAll("-", "_")] ?? findClosestName(key, known);
  return meant === null ? null : { meant, alsoWritten: Object.hasOwn(written, meant) };
}

/** An error for a misspelt key, a warning for any other unknown one; `field` and `meant` as shown. */
function reportUnknownKey(
  report: Diagnostics,
  label: string,
  field: string,
  close: { meant: string; alsoWritten: boolean } | null,
  where: Location,
  id?: string,
): void {
  if (close && !close.alsoWritten) {
    const message = `${label}unknown key \`${field}\` (did you mean \`${close.meant}\`?): as written it is not used; fix the spelling`;
    report.error(message, where, id);
    return;
  }
  const near = close ? ` (\`${close.meant}\` is set too)` : "";
  report.warning(`${label}unknown key \`${field}\` is kept but not used${near}`, where, id);
}

/**
 * Reports keys under \`loom:\` that loom does not know or ignores here: a warning, or an error
 * when the key looks like a misspelt plan key (see \`findMisspeltKey\`).
 */
export function reportPlanKeys(loom: Record<string, unknown>, at: YamlLocator, report: Diagnostics): void {
  for (const key of Object.keys(loom)) {
    if (PLAN_KEYS.has(key)) continue;
    const reason = IGNORED_PLAN_KEYS[key];
    if (reason) {
      report.warning(`\`loom.${key}\` is ignored here: ${reason}`, at.key(["loom", key]));
      continue;
    }
    const close = findMisspeltKey(key, PLAN_KEYS, loom);
    const meant = close && { ...close, meant: `loom.${close.meant}` };
    reportUnknownKey(report, "", `loom.${key}`, meant, at.key(["loom", key]));
  }
}

/**
 * Reports stage keys loom does not know (a warning, or an error when misspelt: see
 * \`findMisspeltKey\`), and reference-CLI settings that mean nothing here.
 */
export function reportStageKeys(
  raw: Record<string, unknown>,
  index: number,
  id: string,
  at: YamlLocator,
  report: Diagnostics,
): void {
  const path = ["loom", "stages", index];
  for (const key of Object.keys(raw)) {
    if (STAGE_KEYS.has(key)) continue;
    const reason = IGNORED_STAGE_KEYS[key];
    if (reason) {
      report.warning(`stage "${id}": \`${key}\` is ignored here: ${reason}`, at.key([...path, key]), id);
      continue;
    }
    const close = findMisspeltKey(key, STAGE_KEYS, raw, STAGE_KEY_ALIASES);
    reportUnknownKey(report, `stage "${id}": `, key, close, at.key([...path, key]), id);
  }
  reportNestedKeys(raw, path, id, at, report);
  const lanes = raw["implementers"];
  const others = Array.isArray(lanes) ? lanes.filter((lane) => lane !== "claude").map(String) : [];
  if (others.length > 0) {
    report.warning(
      `stage "${id}": implementers ${others.join(", ")} are ignored here: each stage runs one Claude Code session on GitHub Actions`,
      at.key([...path, "implementers"]),
      id,
    );
  }
}

/** Known keys of the check objects a stage holds, per stage field. */
const CHECK_KEYS: Readonly<Record<string, ReadonlySet<string>>> = {
  acceptance: new Set(Object.keys(AcceptanceCheck.shape)),
  wiring: new Set(Object.keys(WiringCheck.shape)),
  wiring_tests: new Set(Object.keys(WiringTest.shape)),
  before_stage: new Set(Object.keys(TruthCheck.shape)),
  after_stage: new Set(Object.keys(TruthCheck.shape)),
};
const DEAD_CODE_KEYS = new Set(Object.keys(DeadCodeCheck.shape));
const SUCCESS_CRITERIA_KEYS = new Set(Object.keys(SuccessCriteria.shape));

/** Reports unknown keys inside a stage's check objects (acceptance, wiring, …), misspelt ones as errors. */
function reportNestedKeys(
  raw: Record<string, unknown>,
  path: readonly (string | number)[],
  id: string,
  at: YamlLocator,
  report: Diagnostics,
): void {
  const check = (where: (string | number)[], known: ReadonlySet<string>, value: unknown): void => {
    if (!isRecord(value)) return;
    for (const key of Object.keys(value)) {
      if (known.has(key)) continue;
      const field = [...where, key]
        .map((part) => (typeof part === "number" ? `[${part}]` : `.${part}`))
        .join("")
        .slice(1);
      const close = findMisspeltKey(key, known, value);
      reportUnknownKey(report, `stage "${id}": `, field, close, at.key([...path, ...where, key]), id);
    }
  };
  for (const [field, known] of Object.entries(CHECK_KEYS)) {
    const list = raw[field];
    if (!Array.isArray(list)) continue;
    list.forEach((item: unknown, i) => {
      check([field, i], known, item);
      if (field === "wiring_tests" && isRecord(item))
        check([field, i, "success_criteria"], SUCCESS_CRITERIA_KEYS, item["success_criteria"]);
    });
  }
  check(["dead_code_check"], DEAD_CODE_KEYS, raw["dead_code_check"]);
}
