import { test } from "node:test";
import assert from "node:assert/strict";
import { globsOverlap } from "../../src/plan/globs-overlap.ts";

test("a `]` first in a character class is one of its members, as in a shell glob", () => {
  assert.equal(globsOverlap("src/[]a].ts", "src/a.ts"), true);
  assert.equal(globsOverlap("src/[]a].ts", "src/].ts"), true);
  assert.equal(globsOverlap("src/[]a].ts", "src/b.ts"), false);
});

test("a negated class `[!…]` whose first member is `]` matches every other name", () => {
  assert.equal(globsOverlap("src/[!]a].ts", "src/b.ts"), true);
  assert.equal(globsOverlap("src/[!]a].ts", "src/a.ts"), false);
  assert.equal(globsOverlap("src/[!]a].ts", "src/].ts"), false);
  assert.equal(globsOverlap("src/[!]a].ts", "src/xa].ts"), false, "one character, not a class and `a]`");
});

test("`^` and a backslash inside a class are members, not a negation or an escape", () => {
  assert.equal(globsOverlap("src/[a^].ts", "src/^.ts"), true);
  assert.equal(globsOverlap("src/[^a].ts", "src/^.ts"), true);
  assert.equal(globsOverlap("src/[^a].ts", "src/b.ts"), false);
  assert.equal(globsOverlap("src/[\\a].ts", "src/\\.ts"), true);
});
