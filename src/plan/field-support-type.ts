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
