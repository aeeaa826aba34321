import { PLAN_FIELD_TREE } from "./field-support.ts";
import type { FieldBranch, FieldNode } from "./field-support.ts";
import { isRecord } from "./is-record.ts";

/**
 * The `loom:` value without the explicit `null`s the reference reads as absent (its `Option`
 * fields: `description: null`, `auto_merge: null`, `sandbox.permission_mode: null`, …), so those
 * parse as if left out. Any other `null` stays (and is a type error). Copies only what changes.
 */
export function dropAbsentNulls(loom: Record<string, unknown>): Record<string, unknown> {
  return dropInMapping(loom, PLAN_FIELD_TREE);
}

function dropInMapping(value: Record<string, unknown>, known: FieldNode): Record<string, unknown> {
  let copy: Record<string, unknown> | null = null;
  for (const key of Object.keys(value)) {
    const child = value[key];
    const branch = known.get(key);
    if (branch === undefined || (child !== null && typeof child !== "object")) continue;
    const next = child === null ? (branch.field.nullable ? undefined : child) : dropInValue(child, branch);
    if (next === child) continue;
    copy ??= { ...value };
    if (next === undefined) delete copy[key];
    else copy[key] = next;
  }
  return copy ?? value;
}

function dropInValue(value: unknown, { fields, items }: FieldBranch): unknown {
  if (isRecord(value)) return fields ? dropInMapping(value, fields) : value;
  if (!Array.isArray(value) || items === undefined) return value;
  let changed = false;
  const next = value.map((item: unknown) => {
    const dropped = isRecord(item) ? dropInMapping(item, items) : item;
    changed ||= dropped !== item;
    return dropped;
  });
  return changed ? next : value;
}
