import { PLAN_FIELDS } from "./plan-field-support.ts";
import { STAGE_FIELDS } from "./stage-field-support.ts";

/**
 * What every field a plan may hold does on GitHub: the one place that says it. The validator warns
 * at the field's line for each field present whose support is `warned` (and for the values an
 * `applied` field lists in `unless`), `docs/plan-format.md` is generated from it, and a test walks
 * the reference CLI's schema and fails on a field this registry does not cover. A feature that
 * starts honouring a field flips its entry here (and links its code).
 */

/**
 * Where a field comes from: the reference CLI's schema (`REFERENCE_SCHEMA`), loom's own additions,
 * or keys seen in other versions of the reference's plans that mean nothing here.
 */
export type FieldOrigin = "reference" | "loom" | "other";

/** A value of an applied field that loom does not honour yet (e.g. `auto_merge: false`). */
export type FieldException = {
  /** The value as a plan writes it, for the docs: `false`, `team`, `a list naming codex`. */
  written: string;
  matches: (value: unknown) => boolean;
  /** Completes "`field: value` …": why it is not honoured and what happens instead. */
  because: string;
};

type FieldBase = {
  /**
   * The field's place under `loom:`: `auto_merge`, `sandbox.network.allowed_domains`,
   * `stages[].acceptance[].command` (`[]` is an item of a list).
   */
  path: string;
  origin: FieldOrigin;
  /** An explicit `null` counts as absent (the reference reads the field as an `Option`). */
  nullable?: true;
};

export type FieldSupport = FieldBase &
  (
    | {
        support: "applied";
        /** What loom does with it on GitHub. */
        does: string;
        /** The files that do it, relative to the repository root. */
        code: readonly string[];
        unless?: FieldException;
      }
    | {
        support: "warned";
        /** Completes "`field` …": why it is not honoured and what happens instead. */
        because: string;
      }
  );

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

/** The path of a key under `parent` (`""` is `loom:` itself): `stages[]` + `model` → `stages[].model`. */
export function joinFieldPath(parent: string, key: string): string {
  return parent === "" ? key : `${parent}.${key}`;
}

const CHILDREN = new Map<string, Set<string>>();
for (const { path } of FIELD_SUPPORT) {
  const cut = path.lastIndexOf(".");
  const parent = cut === -1 ? "" : path.slice(0, cut);
  const known = CHILDREN.get(parent) ?? new Set<string>();
  known.add(path.slice(cut + 1));
  CHILDREN.set(parent, known);
}

/** The keys the registry knows inside the mapping at `parent` (`""`, `stages[]`, `sandbox.network`). */
export function listFieldKeys(parent: string): ReadonlySet<string> {
  return CHILDREN.get(parent) ?? new Set();
}
