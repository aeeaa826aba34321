import { FIELD_SUPPORT, findFieldSupport, REFERENCE_SCHEMA } from "./field-support.ts";
import type { FieldSupport } from "./field-support-type.ts";

export const PLAN_FIELDS_START = "<!-- plan-fields:start -->";
export const PLAN_FIELDS_END = "<!-- plan-fields:end -->";

const ORIGIN: Readonly<Record<FieldSupport["origin"], string>> = {
  reference: "reference",
  loom: "loom",
  other: "older plans",
};

/** One table cell: one line, `|` escaped. */
const cell = (text: string): string => text.replaceAll("|", "\\|").replaceAll("\n", " ");

/** The outermost warned field around `field` with the same reason (it carries the warning), if any. */
function findWarnedAncestor(field: FieldSupport): FieldSupport | undefined {
  if (field.support !== "warned") return undefined;
  let found: FieldSupport | undefined;
  let path = field.path;
  for (let cut = path.lastIndexOf("."); cut !== -1; cut = path.lastIndexOf(".")) {
    path = path.slice(0, cut).replace(/\[\]$/, "");
    const parent = findFieldSupport(path);
    if (parent?.support !== "warned" || parent.because !== field.because) break;
    found = parent;
  }
  return found;
}

/** "is not run yet: …" as a sentence of its own: "Not run yet: …". */
function asSentence(because: string): string {
  const text = because.replace(/^is /, "");
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

function renderRow(field: FieldSupport, prefix: string): string {
  const name = `\`${field.path.slice(prefix.length)}\`${field.nullable ? " ¹" : ""}`;
  if (field.support === "warned") {
    const above = findWarnedAncestor(field);
    const what = above ? `as \`${above.path.slice(prefix.length)}\`` : cell(asSentence(field.because));
    return `| ${name} | ${ORIGIN[field.origin]} | warned | ${what} |`;
  }
  const code = field.code.map((file) => `[${file.split("/").at(-1) ?? file}](../${file})`).join(", ");
  const support = field.unless ? `applied; \`${cell(field.unless.written)}\`: warned` : "applied";
  const unless = field.unless ? ` \`${cell(field.unless.written)}\` ${cell(field.unless.because)}.` : "";
  return `| ${name} | ${ORIGIN[field.origin]} | ${support} | ${cell(field.does)} (${code}).${unless} |`;
}

const HEAD = ["| field | from | here | what loom does |", "|---|---|---|---|"];

/**
 * The plan-format reference's field tables, from the registry: every field under `loom:` and on a
 * stage, where it comes from, whether loom applies it or warns at its line, and what happens. A
 * test fails when `docs/plan-format.md`'s copy between the markers differs (print it with
 * `node scripts/print-plan-fields.ts`).
 */
export function renderPlanFields(): string {
  const plan = FIELD_SUPPORT.filter((field) => !field.path.startsWith("stages[]."));
  const stage = FIELD_SUPPORT.filter((field) => field.path.startsWith("stages[]."));
  return [
    "",
    `Checked against ${REFERENCE_SCHEMA.repository} at \`${REFERENCE_SCHEMA.commit.slice(0, 12)}\` (${REFERENCE_SCHEMA.files.map((file) => `\`${file}\``).join(", ")}).`,
    '"applied": loom does on GitHub what the field means. "warned": loom reads the field, and the plan\'s check run and `loom validate` show a warning at its line saying why it is not honoured and what happens instead. ¹ An explicit `null` counts as left out.',
    "",
    "### Under `loom:`",
    "",
    ...HEAD,
    ...plan.map((field) => renderRow(field, "")),
    "",
    "### On a stage (`stages[]`)",
    "",
    ...HEAD,
    ...stage.map((field) => renderRow(field, "stages[].")),
    "",
  ].join("\n");
}
