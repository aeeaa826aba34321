import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { readmeCaller } from "./readme-caller.ts";

const ROOT = join(import.meta.dirname, "..", "..");

describe("README's caller workflow", () => {
  it("is examples/loom.yml exactly, so what people copy is what the release pinned", () => {
    const caller = readmeCaller();
    assert.ok(caller !== null, "README.md has the caller block between the caller markers");
    assert.equal(caller, readFileSync(join(ROOT, "examples/loom.yml"), "utf8"));
  });
});
