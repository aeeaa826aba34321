import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { CheckRunRecord } from "../emulator/emulator-state.ts";
import type { PullRecord } from "./e2e-requests.ts";
import { startE2E, type E2E } from "./harness.ts";
import { scriptStages, writeFiles, type StageScript } from "./model-script.ts";

const PLAN_PATH = "doc/plans/PLAN-judged.md";
const PLAN = `# Plan: Judged

Two stages loom judges on more than their acceptance commands.

<!-- loom METADATA -->

\`\`\`yaml
loom:
  version: 1
  change_impact:
    baseline_command: "cat status/*.txt 2>/dev/null; true"
    failure_patterns: ["^BROKEN:"]
    policy: fail
  stages:
    - id: review
      name: Review
      description: Fix the off-by-one and review the change
      bug_fix: true
      regression_test: {file: fix.test.txt, must_contain: [off_by_one]}
      code_review:
        dimensions: [security, testing]
      acceptance: ["grep -q off_by_one fix.test.txt"]
    - id: impact
      name: Impact
      description: Write the parser status file
      setup: ["export MARK=ready"]
      acceptance: ['test "$MARK" = ready', "test -f status/parser.txt"]
\`\`\`

<!-- END loom METADATA -->
`;

/** Writes files, then ends with `final` as the session's last message. */
function writeThenSay(files: Record<string, string>, final: string): StageScript {
  return (job) => [...writeFiles(files)(job).slice(0, -1), { blocks: [{ type: "text", text: final }] }];
}

/**
 * `code_review` and `change_impact` through the real app, the real action and Claude Code: the
 * review session's final report addresses security but not testing, so its stage fails naming
 * testing; the impact session adds a line matching the plan's failure pattern that the baseline
 * (run before the session) did not have, so under `policy: fail` its stage fails naming the pattern.
 */
describe("code_review and change_impact judge a stage's result", { timeout: 200_000 }, () => {
  let e2e: E2E;
  let pull: PullRecord;
  const failed: Record<string, CheckRunRecord> = {};

  before(async () => {
    e2e = await startE2E({
      script: scriptStages({
        review: writeThenSay(
          { "fix.test.txt": "test off_by_one: parse('a,b') has 2 fields\n" },
          "Fixed.\n\n## Code Review\n\n### security\nThe parser reads no paths and runs no commands.\n",
        ),
        impact: writeFiles({ "status/parser.txt": "BROKEN: parser rejects trailing commas\n" }),
      }),
    });
    pull = await e2e.openPlan({ files: { [PLAN_PATH]: PLAN } });
    for (const stage of ["review", "impact"]) {
      failed[stage] = await e2e.waitFor(
        `${stage}'s check run to fail`,
        async () =>
          (await e2e.checkRuns(pull)).find((r) => r.name === `loom: ${stage}` && r.conclusion === "failure"),
        120_000,
      );
    }
  });
  after(async () => {
    await e2e?.close();
  });

  it("fails the review stage naming the dimension its report left out, and shows each dimension's findings", () => {
    const run = failed["review"];
    const page = `${run?.output.summary ?? ""}\n${run?.output.text ?? ""}`;
    assert.match(page, /code_review: review dimension "testing" was not addressed/, e2e.describe());
    assert.match(page, /\| ✅ \| code_review \| security \|/);
    assert.match(page, /\| ❌ \| code_review \| testing \|/);
    assert.match(page, /The parser reads no paths and runs no commands\./);
    assert.match(page, /\| ✅ \| regression_test \| fix\.test\.txt \|/);
    assert.match(page, /\| ✅ \| change_impact \|/, "the review stage added no failure line");
  });

  it("fails the impact stage under policy: fail naming the matched pattern and line", () => {
    const run = failed["impact"];
    const page = `${run?.output.summary ?? ""}\n${run?.output.text ?? ""}`;
    assert.match(
      page,
      /change_impact: 1 new failure line\(s\) since the baseline \(policy: fail\), first matching "\^BROKEN:": BROKEN: parser rejects trailing commas/,
      e2e.describe(),
    );
    assert.match(page, /\| ✅ \| setup \| export MARK=ready \|/);
    assert.match(page, /\| ✅ \| acceptance \| test "\$MARK" = ready \|/);
  });

  it("made only requests GitHub's OpenAPI description allows", () => {
    e2e.emulator.assertNoViolations();
  });
});
