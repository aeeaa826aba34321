import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { FIELD_SUPPORT } from "../../src/plan/field-support.ts";
import { PLAN_FIELDS_END, PLAN_FIELDS_START, renderPlanFields } from "../../src/plan/render-plan-fields.ts";

const doc = readFileSync(new URL("../../docs/plan-format.md", import.meta.url), "utf8");

/** The rows of the doc's tables, by field as the doc names it (`auto_merge`, `stages[]` ones bare). */
function readRows(text: string): Map<string, string> {
  const rows = new Map<string, string>();
  let level = "";
  for (const line of text.split("\n")) {
    if (line.startsWith("### ")) level = line.includes("stages[]") ? "stages[]." : "";
    const match = /^\| `([^`]+)`/.exec(line);
    if (match) rows.set(`${level}${match[1]}`, line);
  }
  return rows;
}

describe("docs/plan-format.md lists every field with what loom does with it", () => {
  it("its field tables are the registry's (regenerate: node scripts/print-plan-fields.ts)", () => {
    const start = doc.indexOf(PLAN_FIELDS_START);
    const end = doc.indexOf(PLAN_FIELDS_END);
    assert.ok(
      start !== -1 && end > start,
      `the doc has the ${PLAN_FIELDS_START} … ${PLAN_FIELDS_END} markers`,
    );
    assert.equal(doc.slice(start + PLAN_FIELDS_START.length + 1, end - 1), renderPlanFields());
  });

  it("each field has one row saying applied (with the code that does it) or warned", () => {
    const rows = readRows(doc);
    assert.equal(rows.size, FIELD_SUPPORT.length, "one row per field");
    for (const field of FIELD_SUPPORT) {
      const row = rows.get(field.path);
      assert.ok(row, `a row for ${field.path}`);
      const here = row.split(" | ")[2];
      if (field.support === "warned") assert.equal(here, "warned", field.path);
      else {
        assert.match(here ?? "", /^applied/, field.path);
        for (const file of field.code)
          assert.ok(row.includes(`](../${file})`), `${field.path} links ${file}`);
      }
    }
    assert.match(
      rows.get("stages[].execution_mode") ?? "",
      /\| applied; `team`: warned \|.*`team` is a hint loom does not act on/,
    );
    assert.match(
      rows.get("stages[].sandbox.network.allowed_domains") ?? "",
      /\| applied \| hosts the session/,
    );
    assert.match(
      rows.get("stages[].sandbox.filesystem.deny_read") ?? "",
      /\| warned \| as `sandbox.filesystem` \|$/,
    );
  });
});
