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
import { isRecord } from "./is-record.ts";
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

/** Warns about keys under `loom:` that loom does not know or ignores here. Never an error. */
export function reportPlanKeys(loom: Record<string, unknown>, at: YamlLocator, report: Diagnostics): void {
  for (const key of Object.keys(loom)) {
    if (PLAN_KEYS.has(key)) continue;
    const reason = IGNORED_PLAN_KEYS[key];
    const message = reason
      ? `\`loom.${key}\` is ignored here: ${reason}`
      : `unknown key \`loom.${key}\` is kept but not used`;
    report.warning(message, at.key(["loom", key]));
  }
}

/** Warns about stage keys loom does not know, and reference-CLI settings that mean nothing here. */
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
    const message = reason
      ? `stage "${id}": \`${key}\` is ignored here: ${reason}`
      : `stage "${id}": unknown key \`${key}\` is kept but not used`;
    report.warning(message, at.key([...path, key]), id);
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

/** Warns about unknown keys inside a stage's check objects (acceptance, wiring, …). */
function reportNestedKeys(
  raw: Record<string, unknown>,
  path: readonly (string | number)[],
  id: string,
  at: YamlLocator,
  report: Diagnostics,
): void {
  const warn = (where: (string | number)[], known: ReadonlySet<string>, value: unknown): void => {
    if (!isRecord(value)) return;
    for (const key of Object.keys(value)) {
      if (known.has(key)) continue;
      const field = [...where, key]
        .map((part) => (typeof part === "number" ? `[${part}]` : `.${part}`))
        .join("")
        .slice(1);
      report.warning(
        `stage "${id}": unknown key \`${field}\` is kept but not used`,
        at.key([...path, ...where, key]),
        id,
      );
    }
  };
  for (const [field, known] of Object.entries(CHECK_KEYS)) {
    const list = raw[field];
    if (!Array.isArray(list)) continue;
    list.forEach((item: unknown, i) => {
      warn([field, i], known, item);
      if (field === "wiring_tests" && isRecord(item))
        warn([field, i, "success_criteria"], SUCCESS_CRITERIA_KEYS, item["success_criteria"]);
    });
  }
  warn(["dead_code_check"], DEAD_CODE_KEYS, raw["dead_code_check"]);
}
