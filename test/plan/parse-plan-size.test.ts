import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parsePlan } from "../../src/plan/parse-plan.ts";
import { PLAN_LIMITS } from "../../src/plan/plan.ts";
import { HEADER, expectError, goodStage, planMarkdown } from "./plan-markdown.ts";

describe("the 1 MiB limit counts the bytes the file takes in UTF-8", () => {
  const plan = planMarkdown([...HEADER, ...goodStage("a")]);
  /** The plan followed by `pad` and ASCII filler, `extra` bytes past the limit (negative: under it). */
  const sized = (pad: string, extra: number): string => {
    const filler = PLAN_LIMITS.maxBytes + extra - Buffer.byteLength(plan + pad);
    return plan + pad + "x".repeat(filler);
  };
  const cases: [string, string][] = [
    ["ASCII only", ""],
    ["two-byte characters from U+0080 to U+07FF", "\u0080\u07ff".repeat(90_000)],
    ["three-byte characters from U+0800", "\u0800\uffff".repeat(80_000)],
    ["four-byte characters (surrogate pairs) from U+10000", "\u{10000}\u{10ffff}".repeat(60_000)],
    ["a mix, ending in a pair", "é€\u{1f600}".repeat(40_000)],
  ];
  for (const [name, pad] of cases) {
    it(`${name}: exactly 1 MiB is read, one byte more is refused`, () => {
      const atLimit = sized(pad, 0);
      assert.equal(Buffer.byteLength(atLimit), PLAN_LIMITS.maxBytes);
      const read = parsePlan("PLAN-full.md", atLimit);
      assert.ok(read.ok, JSON.stringify(read.ok ? [] : read.errors));
      const over = sized(pad, 1);
      expectError(
        parsePlan("PLAN-full.md", over),
        "the plan file is larger than 1048576 bytes (1 MiB), the limit; split it into smaller plans",
        1,
        1,
      );
    });
  }

  it("a stray high surrogate at the very end counts as the 3 bytes of U+FFFD, as when the file is written", () => {
    const text = sized("\u{10000}".repeat(120_000), -3) + "\ud800";
    assert.equal(Buffer.byteLength(text), PLAN_LIMITS.maxBytes);
    assert.ok(parsePlan("PLAN-stray.md", text).ok);
  });
});
