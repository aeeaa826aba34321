import { PLAN_FIELDS } from "./plan-field-support.ts";
import { STAGE_FIELDS } from "./stage-field-support.ts";
import type { FieldSupport } from "./field-support-type.ts";

/**
 * What every field a plan may hold does on GitHub: the one place that says it. The validator warns
 * at the field's line for each field present whose support is `warned` (and for the values an
 * `applied` field lists in `unless`), `docs/plan-format.md` is generated from it, and a test walks
 * the reference CLI's schema and fails on a field this registry does not cover. A feature that
 * starts honouring a field flips its entry here (and links its code).
 */

/** The reference schema the registry was checked against (cosmix/loom). */
export const REFERENCE_SCHEMA = {
  repository: "cosmix/loom",
  commit: "1c465307605e082e9ab0eafc660858531965781a",
  files: [
    "loom/src/plan/schema/types.rs",
    "loom/src/models/stage/types.rs",
    "loom/src/plan/schema/validation.rs",
  ],
} as const;

export const FIELD_SUPPORT: readonly FieldSupport[] = [...PLAN_FIELDS, ...STAGE_FIELDS];

const BY_PATH = new Map(FIELD_SUPPORT.map((field) => [field.path, field]));

/** The registry entry at `path` (`stages[].model`), if any. */
export function findFieldSupport(path: string): FieldSupport | undefined {
  return BY_PATH.get(path);
}

/** The registry as a tree: a mapping's known keys, each with its entry and what lies inside it. */
export type FieldNode = ReadonlyMap<string, FieldBranch>;
export type FieldBranch = {
  field: FieldSupport;
  /** The keys of a mapping value, if the field holds one. */
  fields?: FieldNode;
  /** The keys of each item, if the field holds a list of mappings. */
  items?: FieldNode;
};

const byParent = new Map<string, FieldSupport[]>();
for (const field of FIELD_SUPPORT) {
  const cut = field.path.lastIndexOf(".");
  const parent = cut === -1 ? "" : field.path.slice(0, cut);
  byParent.set(parent, [...(byParent.get(parent) ?? []), field]);
}

function buildNode(parent: string): FieldNode | undefined {
  const fields = byParent.get(parent);
  if (fields === undefined) return undefined;
  return new Map(
    fields.map((field): [string, FieldBranch] => {
      const inner = buildNode(field.path);
      const items = buildNode(`${field.path}[]`);
      const key = field.path.slice(parent === "" ? 0 : parent.length + 1);
      return [key, { field, ...(inner ? { fields: inner } : {}), ...(items ? { items } : {}) }];
    }),
  );
}

/** The keys under `loom:`; a stage's keys are `STAGE_FIELD_TREE`. */
export const PLAN_FIELD_TREE: FieldNode = buildNode("") ?? new Map();
export const STAGE_FIELD_TREE: FieldNode = buildNode("stages[]") ?? new Map();
