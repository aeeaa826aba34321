import { findFieldSupport, joinFieldPath, listFieldKeys } from "./field-support.ts";
import { isRecord } from "./is-record.ts";

/**
 * The `loom:` value without the explicit `null`s the reference reads as absent (its `Option`
 * fields: `description: null`, `auto_merge: null`, `sandbox.permission_mode: null`, …), so those
 * parse as if left out. Any other `null` stays (and is a type error). Copies only what changes.
 */
export function dropAbsentNulls(loom: Record<string, unknown>): Record<string, unknown> {
  return dropInMapping(loom, "");
}

function dropInMapping(value: Record<string, unknown>, parent: string): Record<string, unknown> {
  let copy: Record<string, unknown> | null = null;
  for (const [key, child] of Object.entries(value)) {
    const path = joinFieldPath(parent, key);
    const entry = findFieldSupport(path);
    if (entry === undefined) continue;
    const next = child === null && entry.nullable ? undefined : dropInValue(child, path);
    if (next === child) continue;
    copy ??= { ...value };
    if (next === undefined) delete copy[key];
    else copy[key] = next;
  }
  return copy ?? value;
}

function dropInValue(value: unknown, path: string): unknown {
  if (isRecord(value)) return dropInMapping(value, path);
  if (!Array.isArray(value) || listFieldKeys(`${path}[]`).size === 0) return value;
  let changed = false;
  const items = value.map((item: unknown) => {
    const next = isRecord(item) ? dropInMapping(item, `${path}[]`) : item;
    changed ||= next !== item;
    return next;
  });
  return changed ? items : value;
}
