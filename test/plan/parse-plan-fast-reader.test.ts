import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { describe, it } from "node:test";
import fc from "fast-check";
import { generatePlan } from "../../bench/bench-parse.ts";
import { extractMetadata } from "../../src/plan/extract-metadata.ts";
import { parsePlan } from "../../src/plan/parse-plan.ts";
import { HEADER, goodStage, planMarkdown } from "./plan-markdown.ts";

const corpusDir = new URL("../fixtures/corpus/plans/", import.meta.url);
const corpus = existsSync(corpusDir)
  ? readdirSync(corpusDir)
      .filter((name) => name.endsWith(".md"))
      .sort()
      .map((name) => [name, readFileSync(new URL(name, corpusDir), "utf8")] as const)
  : [];
const fixtures = ["PLAN-complex.md", "PLAN-simple.md", "PLAN-every-field.md"]
  .map((name) => new URL(`../fixtures/plans/${name}`, import.meta.url))
  .filter((url) => existsSync(url))
  .map((url) => [url.pathname, readFileSync(url, "utf8")] as const);
const plans = [
  ...corpus,
  ...fixtures,
  ["generated-50", generatePlan(50)] as const,
  ["two stages", planMarkdown([...HEADER, ...goodStage("a"), ...goodStage("b", ["a"])])] as const,
];

/** The fast read and the careful read of one plan text give the same answer, to the column. */
function assertSameAnswer(text: string, label: string): void {
  const fast = parsePlan("doc/plans/PLAN-diff.md", text);
  const careful = parsePlan("doc/plans/PLAN-diff.md", text, { reader: "careful" });
  assert.deepEqual(fast, careful, `${label}\n--- yaml ---\n${text}`);
}

/** `yaml` with the plan's markdown around it, as a plan file has it. */
function planWith(yaml: string): string {
  return [
    "# Plan: diff",
    "",
    "<!-- loom METADATA -->",
    "",
    "```yaml",
    yaml,
    "```",
    "",
    "<!-- END loom METADATA -->",
    "",
  ].join("\n");
}

describe("the fast yaml reader gives the careful reader's answer", () => {
  it("on every corpus plan, fixture and generated plan, warnings and their columns included", () => {
    assert.ok(plans.length >= 4);
    for (const [name, text] of plans) assertSameAnswer(text, name);
  });

  // Each row is a place where js-yaml and the `yaml` library could part: scalar types, quoting,
  // block scalars, empty values, keys that are not plain words, props, directives, duplicates.
  const stageYaml = (field: string): string =>
    [
      "loom:",
      "  version: 1",
      "  stages:",
      "    - id: a",
      "      name: A",
      `      ${field}`,
      '      acceptance: ["true"]',
    ].join("\n");
  const rows: [string, string][] = [
    ["a number where a string belongs", stageYaml("description: 0x1F")],
    ["an octal-looking word", stageYaml("description: 0o17")],
    ["a yes that YAML 1.1 would read as true", stageYaml("description: yes")],
    ["a tilde null", stageYaml("description: ~")],
    ["an empty value", stageYaml("description:")],
    ["a block scalar", stageYaml("description: |\n        two\n        lines")],
    ["a folded block scalar kept", stageYaml("description: >+\n        folded\n")],
    ["a double-quoted escape", stageYaml('description: "tab\\there \\u00e9"')],
    ["a single-quoted quote", stageYaml("description: 'it''s'")],
    ["a multi-line plain scalar", stageYaml("description: first\n        second")],
    ["a quoted key", stageYaml('"description": quoted key')],
    ["a numeric key", stageYaml("1: one")],
    ["a key that reads as true", stageYaml("True: yes")],
    // A plain key whose value as a string is not its text must not be taken for a quoted one.
    [
      "a quoted key and a plain key of the same text that reads as a number",
      stageYaml('"0x1": q\n      0x1: p'),
    ],
    [
      "a quoted key and a plain key of the same text that reads as true",
      stageYaml('"True": q\n      True: p'),
    ],
    ["an unknown key near a known one", stageYaml("descripton: typo")],
    ["a flow map value", stageYaml("files: {a: b}")],
    ["a tag", stageYaml("description: !!str 12")],
    ["a custom tag", stageYaml("description: !shout hi")],
    ["an anchor and its alias", stageYaml("description: &d text\n      notes: *d")],
    ["a merge key", stageYaml("<<: {description: merged}")],
    ["a duplicate key", stageYaml("name: B")],
    ["a tab in the indentation", stageYaml("description: x\n\tnotes: y")],
    ["a comment after a value", stageYaml("description: x # a comment")],
    ["a flow sequence over lines", stageYaml("files: [a,\n        b]")],
    ["a complex key", stageYaml("? [a, b]\n      : complex")],
    ["a __proto__ key", stageYaml("__proto__: {polluted: true}")],
    ["a document start", "---\n" + stageYaml("description: x")],
    ["a YAML 1.1 directive", "%YAML 1.1\n---\n" + stageYaml("description: yes")],
    ["two documents", stageYaml("description: x") + "\n---\nmore: doc"],
    ["an empty document", "# only a comment"],
    ["a scalar document", "just text"],
    ["deep flow nesting", stageYaml("description: " + "[".repeat(150) + "]".repeat(150))],
    [
      "deep block nesting",
      stageYaml(Array.from({ length: 120 }, (_, i) => " ".repeat(2 * i) + "k:").join("\n        ")),
    ],
    ["a NaN and infinities", stageYaml("max_retries: .nan\n      timeout: -.inf")],
    ["a timestamp", stageYaml("description: 2024-01-01")],
  ];
  for (const [name, yaml] of rows) {
    it(`on ${name}`, () => assertSameAnswer(planWith(yaml), name));
  }

  it("on plans mutated at random inside their METADATA yaml", () => {
    const alphabet = [
      ":",
      "-",
      " ",
      "  ",
      "\n",
      "[",
      "]",
      "{",
      "}",
      "'",
      '"',
      "|",
      ">",
      "#",
      "&",
      "*",
      "!",
      "%",
      "?",
      ",",
      "\t",
      "a",
      "1",
      ".",
      "~",
      "@",
      "`",
      "\\",
      "x: y\n",
    ];
    const seeds = plans.map(([, text]) => text);
    const edit = fc.record({
      at: fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
      kind: fc.constantFrom("insert", "delete", "line", "indent"),
      text: fc.constantFrom(...alphabet),
    });
    fc.assert(
      fc.property(
        fc.nat(seeds.length - 1),
        fc.array(edit, { minLength: 1, maxLength: 3 }),
        (which, edits) => {
          let text = seeds[which] ?? "";
          for (const e of edits) {
            const block = extractMetadata(text);
            if (!block.ok || block.yaml.length === 0) break;
            const at = block.yamlOffset + Math.floor(e.at * block.yaml.length);
            const lineStart = text.lastIndexOf("\n", at - 1) + 1;
            const lineEnd = text.indexOf("\n", at);
            if (e.kind === "insert") text = text.slice(0, at) + e.text + text.slice(at);
            else if (e.kind === "delete") text = text.slice(0, at) + text.slice(at + 1);
            else if (e.kind === "line") text = text.slice(0, lineStart) + text.slice(lineEnd + 1);
            else text = text.slice(0, lineStart) + " " + text.slice(lineStart);
          }
          assertSameAnswer(text, `seed ${which}, edits ${JSON.stringify(edits)}`);
        },
      ),
      {
        numRuns: Number(process.env.LOOM_FUZZ_RUNS ?? 300),
        seed: Number(process.env.LOOM_FUZZ_SEED ?? 20261126),
      },
    );
  });
});
