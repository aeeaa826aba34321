import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { isMap, isScalar, isSeq, parseDocument } from "yaml";
import type { Node } from "yaml";
import { z } from "zod";
import { FIELD_SUPPORT, findFieldSupport, REFERENCE_SCHEMA } from "../../src/plan/field-support.ts";
import { parsePlan } from "../../src/plan/parse-plan.ts";
import { LoomMetadata, Stage } from "../../src/plan/plan.ts";
import { NULLABLE_FIELDS, REFERENCE_FIELDS } from "./reference-schema.ts";

const EVERY_FIELD_PATH = "test/fixtures/plans/PLAN-every-field.md";
const everyField = readFileSync(new URL("../fixtures/plans/PLAN-every-field.md", import.meta.url), "utf8");

/** Where each key of the METADATA yaml is written, by registry path (`stages[].model`), read with the `yaml` library. */
function locateKeys(markdown: string): Map<string, { line: number; column: number }[]> {
  const open = markdown.indexOf("```yaml\n") + "```yaml\n".length;
  const yaml = markdown.slice(open, markdown.indexOf("\n```", open) + 1);
  const doc = parseDocument(yaml);
  const found = new Map<string, { line: number; column: number }[]>();
  const place = (offset: number) => {
    const before = markdown.slice(0, open + offset).split("\n");
    return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
  };
  const walk = (node: unknown, path: string): void => {
    if (isMap(node)) {
      for (const pair of node.items) {
        if (!isScalar(pair.key)) continue;
        const key = String(pair.key.value);
        const child = path === "" ? key : `${path}.${key}`;
        found.set(child, [...(found.get(child) ?? []), place((pair.key as Node).range?.[0] ?? 0)]);
        walk(pair.value, child);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) walk(item, `${path}[]`);
    }
  };
  walk(doc.contents, "");
  // Paths under `loom:`, as the registry writes them.
  return new Map([...found].flatMap(([path, at]) => (path.startsWith("loom.") ? [[path.slice(5), at]] : [])));
}

describe("every field of a reference plan is applied or warned about at its line", () => {
  it("the registry says what loom does with each field of the reference schema", () => {
    assert.equal(REFERENCE_SCHEMA.commit, "1c465307605e082e9ab0eafc660858531965781a");
    const missing = REFERENCE_FIELDS.filter((path) => {
      const field = findFieldSupport(path);
      return field?.origin !== "reference" || (field.support !== "applied" && field.support !== "warned");
    });
    assert.deepEqual(missing, [], "fields of the reference that loom neither applies nor warns about");
    const extra = FIELD_SUPPORT.filter((f) => f.origin === "reference" && !REFERENCE_FIELDS.includes(f.path));
    assert.deepEqual(
      extra.map((f) => f.path),
      [],
      "fields the registry calls the reference's that the written-down list does not have",
    );
  });

  it("one plan using every reference field validates with zero errors, with a warning at the line and column of each field loom does not honour, and none at the others", () => {
    const result = parsePlan(EVERY_FIELD_PATH, everyField);
    assert.ok(result.ok, JSON.stringify(result.ok ? null : result.errors, null, 2));
    const keys = locateKeys(everyField);
    const unused = REFERENCE_FIELDS.filter((path) => !keys.has(path));
    assert.deepEqual(unused, [], "the plan uses every field of the reference");

    // Where loom must warn: each field (or value) the registry does not honour, once, at its
    // outermost such key; a warned field's own fields are covered by its warning.
    const expected: string[] = [];
    const covered = new Set<string>();
    for (const [path, places] of keys) {
      const field = findFieldSupport(path);
      assert.ok(field, `the registry knows ${path}`);
      const under = [...covered].some(
        (above) => path.startsWith(`${above}.`) || path.startsWith(`${above}[]`),
      );
      if (under) continue;
      const warned = field.support === "warned";
      const values = field.support === "applied" && field.unless ? lookUpValues(path) : [];
      places.forEach((place, i) => {
        if (warned || (field.support === "applied" && field.unless?.matches(values[i])))
          expected.push(`${place.line}:${place.column} ${path}`);
      });
      if (warned) covered.add(path);
    }
    const warnings = result.warnings.map((w) => `${w.line}:${w.column}`);
    assert.deepEqual(
      warnings,
      expected.map((entry) => entry.split(" ")[0]),
      `warnings:\n${result.warnings.map((w) => `${w.line}:${w.column} ${w.message}`).join("\n")}\nexpected at:\n${expected.join("\n")}`,
    );
    // The plan exercises both kinds at both levels: a warned field, and a value an applied field does not honour.
    for (const path of [
      "sandbox.filesystem",
      "stages[].sandbox.filesystem",
      "stages[].implementers",
      "stages[].execution_mode",
    ])
      assert.ok(
        expected.some((entry) => entry.endsWith(` ${path}`)),
        path,
      );
  });

  it("each warning says what is not honoured, why, and names the value when only that value is not", () => {
    const result = parsePlan(EVERY_FIELD_PATH, everyField);
    const at = (line: number) => result.warnings.find((w) => w.line === line)?.message;
    assert.equal(
      at(119),
      'stage "fix-parser": `execution_mode: team` is a hint loom does not act on: the stage runs as one Claude Code session (the reference does not act on it either)',
    );
    assert.match(at(106) ?? "", /^stage "fix-parser": `sandbox.filesystem` is not enforced yet: /);
    assert.equal(result.warnings.find((w) => w.line === 106)?.stage, "fix-parser");
    assert.equal(at(101), undefined, "the network sandbox is enforced: no warning at `sandbox`");
    assert.match(at(127) ?? "", /^stage "fix-parser": `implementers: \[codex, claude\]` is ignored here: /);
  });

  it("the registry and the plan schema name the same fields", () => {
    const schemaPaths = [...listSchemaPaths(LoomMetadata, ""), ...listSchemaPaths(Stage, "stages[]")];
    const registered = FIELD_SUPPORT.filter((f) => f.origin !== "other").map((f) => f.path);
    assert.deepEqual(
      schemaPaths.filter((path) => !registered.includes(path)),
      [],
      "keys the schema reads that the registry does not say anything about",
    );
    assert.deepEqual(
      registered.filter((path) => !schemaPaths.includes(path)),
      [],
      "registry fields the schema does not read",
    );
    const other = FIELD_SUPPORT.filter((f) => f.origin === "other");
    assert.ok(other.every((f) => f.support === "warned" && !schemaPaths.includes(f.path)));
  });

  it("the reference's Option fields are the ones whose null counts as left out", () => {
    assert.deepEqual(
      FIELD_SUPPORT.filter((f) => f.nullable).map((f) => f.path),
      REFERENCE_FIELDS.filter((path) => NULLABLE_FIELDS.includes(path)),
    );
  });

  it("the code an applied field links to exists", () => {
    const missing = FIELD_SUPPORT.flatMap((f) => (f.support === "applied" ? f.code : [])).filter(
      (file) => !existsSync(new URL(`../../${file}`, import.meta.url)),
    );
    assert.deepEqual(missing, []);
  });
});

/** The values written at `path` in the every-field plan, in file order. */
function lookUpValues(path: string): unknown[] {
  const result = parsePlan(EVERY_FIELD_PATH, everyField);
  assert.ok(result.ok);
  const pick = (value: unknown, parts: readonly string[]): unknown[] => {
    const [part, ...rest] = parts;
    if (part === undefined) return [value];
    const list = part.endsWith("[]");
    const key = list ? part.slice(0, -2) : part;
    const child = (value as Record<string, unknown> | undefined)?.[key];
    if (child === undefined) return [];
    return list ? (child as unknown[]).flatMap((item) => pick(item, rest)) : pick(child, rest);
  };
  return pick(result.plan.metadata, path.split("."));
}

/** Every key path a zod object schema reads, nested objects and list items included. */
function listSchemaPaths(schema: z.ZodType, prefix: string): string[] {
  const inner = unwrap(schema);
  if (inner instanceof z.ZodArray) return listSchemaPaths(inner.element as z.ZodType, `${prefix}[]`);
  if (inner instanceof z.ZodUnion)
    return (inner.options as readonly z.ZodType[]).flatMap((option) => listSchemaPaths(option, prefix));
  if (!(inner instanceof z.ZodObject)) return [];
  return Object.entries(inner.shape as Record<string, z.ZodType>).flatMap(([key, child]) => {
    const path = prefix === "" ? key : `${prefix}.${key}`;
    // `stages` is the list of stages: its items are the Stage schema, listed separately.
    return key === "stages" && prefix === "" ? [path] : [path, ...listSchemaPaths(child, path)];
  });
}

function unwrap(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodDefault || schema instanceof z.ZodNullable)
    return unwrap(schema.unwrap() as z.ZodType);
  return schema;
}
