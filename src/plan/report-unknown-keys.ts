import type { Diagnostics } from "./diagnostics.ts";
import { PLAN_FIELD_TREE, STAGE_FIELD_TREE } from "./field-support.ts";
import type { FieldNode } from "./field-support.ts";
import type { FieldSupport } from "./field-support-type.ts";
import { findClosestName } from "./find-closest-name.ts";
import { isRecord } from "./is-record.ts";
import type { Location } from "./plan.ts";
import type { YamlLocator, YamlPath } from "./yaml-locator.ts";

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

/** Whose keys are walked: the plan's (named `loom.…`) or one stage's (named after the stage). */
type Scope = { label: string; prefix: string; stage?: string };

/**
 * Reports every key under `loom:` but the stages (see `reportStageKeys`): what `field-support.ts`
 * warns about, and keys it does not know (a warning, or an error when misspelt).
 */
export function reportPlanKeys(loom: Record<string, unknown>, at: YamlLocator, report: Diagnostics): void {
  // `stages` is known; its items are walked one by one.
  const settings = Object.fromEntries(Object.entries(loom).filter(([key]) => key !== "stages"));
  walkMapping(settings, PLAN_FIELD_TREE, ["loom"], "", { label: "", prefix: "loom." }, false, at, report);
}

/** Reports one stage's keys, nested ones included, the same way. */
export function reportStageKeys(
  raw: Record<string, unknown>,
  index: number,
  id: string,
  at: YamlLocator,
  report: Diagnostics,
): void {
  const scope = { label: `stage "${id}": `, prefix: "", stage: id };
  walkMapping(raw, STAGE_FIELD_TREE, ["loom", "stages", index], "", scope, false, at, report);
}

function walkMapping(
  value: Record<string, unknown>,
  known: FieldNode,
  yaml: YamlPath,
  shown: string,
  scope: Scope,
  warnedAbove: boolean,
  at: YamlLocator,
  report: Diagnostics,
): void {
  for (const key of Object.keys(value)) {
    const child = value[key];
    const branch = known.get(key);
    // Locations are found only for what is reported: most keys are not.
    const where = (): YamlPath => [...yaml, key];
    const field = shown === "" ? key : `${shown}.${key}`;
    if (branch === undefined) {
      reportUnknownKey(key, value, known, field, scope, at.key(where()), report);
      continue;
    }
    if (child === null || child === undefined) continue;
    const warning = warnedAbove ? null : describeUnsupported(branch.field, child);
    if (warning !== null) reportUnsupported(warning, child, field, scope, at.key(where()), report);
    if (typeof child !== "object") continue;
    const warned = warnedAbove || warning !== null;
    const { fields, items } = branch;
    if (!Array.isArray(child)) {
      if (fields)
        walkMapping(child as Record<string, unknown>, fields, where(), field, scope, warned, at, report);
      continue;
    }
    if (items === undefined) continue;
    child.forEach((item: unknown, i) => {
      if (isRecord(item))
        walkMapping(item, items, [...yaml, key, i], `${field}[${i}]`, scope, warned, at, report);
    });
  }
}

function reportUnsupported(
  warning: { because: string; showValue: boolean },
  value: unknown,
  field: string,
  scope: Scope,
  where: Location,
  report: Diagnostics,
): void {
  const written = warning.showValue ? `: ${renderValue(value)}` : "";
  report.warning(
    `${scope.label}\`${scope.prefix}${field}${written}\` ${warning.because}`,
    where,
    scope.stage,
  );
}

/** Why `value` of a field is not honoured here, or null when it is. */
function describeUnsupported(
  entry: FieldSupport,
  value: unknown,
): { because: string; showValue: boolean } | null {
  if (entry.support === "warned") return { because: entry.because, showValue: false };
  if (entry.unless?.matches(value)) return { because: entry.unless.because, showValue: true };
  return null;
}

/** A value as a plan writes it, short: `false`, `team`, `[codex, claude]`. */
function renderValue(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(renderValue).join(", ")}]`;
  if (isRecord(value)) return "{…}";
  if (typeof value === "string") return /^[\w./-]+$/.test(value) ? value : JSON.stringify(value);
  return String(value);
}

/** An error for a misspelt key, a warning for any other unknown one. */
function reportUnknownKey(
  key: string,
  written: Record<string, unknown>,
  parent: FieldNode,
  field: string,
  scope: Scope,
  where: Location,
  report: Diagnostics,
): void {
  const known = new Set(
    [...parent].flatMap(([name, branch]) => (branch.field.origin === "other" ? [] : [name])),
  );
  const close = findMisspeltKey(key, known, written, parent === STAGE_FIELD_TREE ? STAGE_KEY_ALIASES : {});
  const name = `${scope.prefix}${field}`;
  // On the plan a key is named by its whole path; in a stage, a nested key by its own name.
  const meant =
    close &&
    (scope.prefix === ""
      ? close.meant
      : `${scope.prefix}${[parentShown(field), close.meant].filter(Boolean).join(".")}`);
  if (close && !close.alsoWritten) {
    const message = `${scope.label}unknown key \`${name}\` (did you mean \`${meant}\`?): as written it is not used; fix the spelling`;
    report.error(message, where, scope.stage);
    return;
  }
  const near = close ? ` (\`${meant}\` is set too)` : "";
  report.warning(`${scope.label}unknown key \`${name}\` is kept but not used${near}`, where, scope.stage);
}

/** `sandbox.network` for the field `sandbox.network.x`; `""` for a top-level key. */
function parentShown(field: string): string {
  const cut = field.lastIndexOf(".");
  return cut === -1 ? "" : field.slice(0, cut);
}
