import assert from "node:assert/strict";
import { test } from "node:test";
import { parseLoomConfig } from "../../src/config/loom-config.ts";

test("the session section of .github/loom.yml sets spend and turn caps", () => {
  const result = parseLoomConfig("session:\n  max_budget_usd: 4.5\n  max_turns: 60\n");
  assert.ok(result.ok);
  assert.deepEqual(result.config.session, { max_budget_usd: 4.5, max_turns: 60 });
});

test("a config without a session section sets no caps", () => {
  const result = parseLoomConfig("max_parallel: 2\n");
  assert.ok(result.ok);
  assert.equal(result.config.session, undefined);
});

test("a typo or a bad value in the session section is refused", () => {
  for (const text of [
    "session:\n  max_budget: 4\n",
    "session:\n  max_budget_usd: 0\n",
    "session:\n  max_turns: 2.5\n",
    "session:\n  max_turns: many\n",
  ]) {
    const result = parseLoomConfig(text);
    assert.ok(!result.ok, text);
    assert.match(result.problems[0]?.message ?? "", /^session/, text);
  }
});
