import assert from "node:assert/strict";
import { test } from "node:test";
import { readRetirePolicy } from "../../action/src/publish/read-retire-policy.ts";
import { parseLoomConfig } from "../../src/config/loom-config.ts";

test("learnings: in .github/loom.yml sets when learnings retire; the App and the publish job read it alike", () => {
  const text = "learnings:\n  retire_after_plans: 5\n";
  const result = parseLoomConfig(text);
  assert.ok(result.ok);
  assert.deepEqual(result.config.learnings, { retire_after_plans: 5, retire_after_failures: 3 });
  assert.deepEqual(readRetirePolicy(text), { policy: { retire_after_plans: 5, retire_after_failures: 3 } });
  assert.deepEqual(readRetirePolicy(null), { policy: { retire_after_plans: 20, retire_after_failures: 3 } });
});

test("a typo or a bad value in learnings: is refused by the App; the publish job keeps the defaults and says why", () => {
  for (const text of ["learnings:\n  retire_after: 5\n", "learnings:\n  retire_after_plans: -1\n"]) {
    const result = parseLoomConfig(text);
    assert.ok(!result.ok, text);
    assert.match(result.problems[0]?.message ?? "", /^learnings/, text);
    const read = readRetirePolicy(text);
    assert.deepEqual(read.policy, { retire_after_plans: 20, retire_after_failures: 3 });
    assert.match(read.problem ?? "", /^\.github\/loom\.yml learnings/);
  }
});
