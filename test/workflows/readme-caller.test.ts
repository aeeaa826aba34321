import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";

const ROOT = join(import.meta.dirname, "..", "..");

/** The caller block of README's quick start, without its list indentation. */
function readmeCaller(readme: string): string | null {
  const block = /<!-- caller:start -->\n\s*```yaml\n([\s\S]*?)\n\s*```\n\s*<!-- caller:end -->/.exec(
    readme,
  )?.[1];
  if (block === undefined) return null;
  return `${block
    .split("\n")
    .map((line) => line.replace(/^ {3}/, ""))
    .join("\n")}\n`;
}

describe("README's caller workflow", () => {
  it("is examples/loom.yml exactly, so what people copy is what the release pinned", () => {
    const caller = readmeCaller(readFileSync(join(ROOT, "README.md"), "utf8"));
    assert.ok(caller !== null, "README.md has the caller block between the caller markers");
    assert.equal(caller, readFileSync(join(ROOT, "examples/loom.yml"), "utf8"));
  });
});
