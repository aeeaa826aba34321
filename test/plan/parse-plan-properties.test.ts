import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { describe, it } from "node:test";
import fc from "fast-check";
import { stringify } from "yaml";
import { parsePlan } from "../../src/plan/parse-plan.ts";
import { HEADER, goodStage, planMarkdown } from "./plan-markdown.ts";

const fixture = readFileSync(new URL("../fixtures/plans/PLAN-complex.md", import.meta.url), "utf8");
const corpusDir = new URL("../fixtures/corpus/plans/", import.meta.url);
const corpus = existsSync(corpusDir)
  ? readdirSync(corpusDir)
      .filter((name) => name.endsWith(".md"))
      .map((name) => readFileSync(new URL(name, corpusDir), "utf8"))
  : [];
const seeds = [fixture, planMarkdown([...HEADER, ...goodStage("a"), ...goodStage("b", ["a"])]), ...corpus];

/** Parses and checks what every answer must satisfy, whatever the input. */
function parseAndCheck(text: string): void {
  const result = parsePlan("doc/plans/PLAN-prop.md", text);
  assert.equal(typeof result.ok, "boolean");
  const lines = text.split("\n");
  const diagnostics = [...result.warnings, ...(result.ok ? [] : result.errors)];
  if (!result.ok) assert.ok(result.errors.length > 0, "an invalid plan has at least one error");
  for (const d of diagnostics) {
    assert.ok(!d.message.startsWith("internal error"), d.message);
    assert.ok(
      Number.isInteger(d.line) && d.line >= 1 && d.line <= lines.length,
      `line ${d.line} of ${lines.length}: ${d.message}`,
    );
    const lineLength = lines[d.line - 1]?.length ?? 0;
    assert.ok(
      Number.isInteger(d.column) && d.column >= 1 && d.column <= lineLength + 1,
      `column ${d.column} of ${lineLength}: ${d.message}`,
    );
  }
  if (result.ok) {
    const ids = result.plan.stages.map((s) => s.id);
    assert.ok(ids.length > 0);
    assert.equal(new Set(ids).size, ids.length);
  }
}

/** A random edit of a text: delete, insert, duplicate or replace a slice. */
const mutatedSeed = fc
  .tuple(
    fc.constantFrom(...seeds),
    fc.array(
      fc.record({
        kind: fc.constantFrom("delete", "insert", "duplicate", "replace"),
        at: fc.double({ min: 0, max: 1, noNaN: true }),
        length: fc.nat(40),
        text: fc.oneof(
          fc.string({ maxLength: 8 }),
          fc.constantFrom(
            ":",
            "- ",
            "\n",
            "  ",
            "[",
            "&a ",
            "*a",
            "```",
            "<!-- END loom METADATA -->",
            "dependencies: [x]",
            "\t",
            "'",
            '"',
          ),
        ),
      }),
      { minLength: 1, maxLength: 5 },
    ),
  )
  .map(([seed, edits]) =>
    edits.reduce((text, edit) => {
      const at = Math.floor(edit.at * text.length);
      const end = Math.min(text.length, at + edit.length);
      switch (edit.kind) {
        case "delete":
          return text.slice(0, at) + text.slice(end);
        case "insert":
          return text.slice(0, at) + edit.text + text.slice(at);
        case "duplicate":
          return text.slice(0, end) + text.slice(at, end) + text.slice(end);
        case "replace":
          return text.slice(0, at) + edit.text + text.slice(end);
      }
    }, seed),
  );

describe("parsePlan never throws", () => {
  it("on arbitrary strings", () => {
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 400 }), parseAndCheck), { numRuns: 300 });
  });

  it("on arbitrary text inside a METADATA block", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 400 }), (body) =>
        parseAndCheck(planMarkdown(body.split("\n"))),
      ),
      { numRuns: 300 },
    );
  });

  it("on arbitrary values under loom:", () => {
    const value = fc.record({
      loom: fc.record({
        version: fc.jsonValue({ maxDepth: 1 }),
        stages: fc.array(
          fc.dictionary(
            fc.constantFrom(
              "id",
              "name",
              "dependencies",
              "acceptance",
              "files",
              "wiring",
              "stage_type",
              "working_dir",
              "x",
            ),
            fc.jsonValue({ maxDepth: 2 }),
          ),
          { maxLength: 4 },
        ),
      }),
    });
    fc.assert(
      fc.property(value, (data) => parseAndCheck(planMarkdown(stringify(data).split("\n")))),
      { numRuns: 300 },
    );
  });

  it("on mutated corpus plans", () => {
    fc.assert(fc.property(mutatedSeed, parseAndCheck), { numRuns: 150 });
  });
});
