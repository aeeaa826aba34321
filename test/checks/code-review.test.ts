import { test } from "node:test";
import assert from "node:assert/strict";
import { checkCodeReview } from "../../action/src/checks/check-code-review.ts";
import { decideStageOutcome } from "../../action/src/checks/decide-stage-outcome.ts";
import { EMPTY_OBSERVATION, observeStream } from "../../action/src/session/observe-stream.ts";
import { Stage } from "../../src/plan/plan.ts";
import { parseReviewReport } from "../../src/review/review-report.ts";
import { buildSignal } from "../../src/signal/build-signal.ts";

const stage = (code_review: unknown): Stage =>
  Stage.parse({ id: "verify", name: "Verify", stage_type: "integration-verify", code_review });

const REPORT = [
  "All done, the branch is verified.",
  "",
  "## Code Review",
  "",
  "### Security",
  "No input reaches a shell; the token stays in the publish job.",
  "- checked redaction too",
  "",
  "### testing",
  "",
  "## Next",
  "nothing",
].join("\n");

test("a review report's dimensions are read from its headings, with their findings", () => {
  assert.deepEqual(parseReviewReport(REPORT), [
    {
      dimension: "Security",
      findings: "No input reaches a shell; the token stays in the publish job.\n- checked redaction too",
    },
    { dimension: "testing", findings: "" },
  ]);
});

test("a review report may list dimensions as bullets, the reference's checklist style", () => {
  const text =
    "## Code Review\n- [x] **security**: nothing reaches a shell\n- **testing** — two new tests\n  and a fix\n";
  assert.deepEqual(parseReviewReport(text), [
    { dimension: "security", findings: "nothing reaches a shell" },
    { dimension: "testing", findings: "two new tests\n  and a fix" },
  ]);
});

test("no report section, or no final message, reads as no dimensions", () => {
  assert.deepEqual(parseReviewReport("Done."), []);
  assert.deepEqual(parseReviewReport(null), []);
});

test("under require_all, each dimension without findings fails and is named in the stage's reason", () => {
  const checks = checkCodeReview(stage({ dimensions: ["security", "testing", "wiring"] }), REPORT, []);
  assert.deepEqual(
    checks.map((c) => [c.kind, c.name, c.passed]),
    [
      ["code_review", "security", true],
      ["code_review", "testing", false],
      ["code_review", "wiring", false],
    ],
  );
  assert.match(checks[0]?.output_tail ?? "", /token stays in the publish job/);
  assert.match(checks[2]?.output_tail ?? "", /"wiring" was not addressed: .*report names Security, testing/);
  const verdict = decideStageOutcome({
    kind: "stage",
    stageType: "integration-verify",
    session: { status: "completed", reason: "done" },
    commits: [{ sha: "a".repeat(40), subject: "x" }],
    checks,
    permissionDenials: [],
  });
  assert.equal(verdict.outcome, "completed-with-failures");
  assert.match(
    verdict.reason,
    /2 of 3 checks failed, first: code_review: review dimension "testing" was not addressed/,
  );
});

test("without require_all a dimension left out only warns; a secret in the findings is redacted", () => {
  const checks = checkCodeReview(
    stage({ dimensions: ["security", "docs"], require_all: false }),
    "## Code Review\n### security\nthe key s3cr3t-value is not logged",
    ["s3cr3t-value"],
  );
  assert.deepEqual(
    checks.map((c) => [c.name, c.passed, c.warned ?? false]),
    [
      ["security", true, false],
      ["docs", true, true],
    ],
  );
  assert.doesNotMatch(checks[0]?.output_tail ?? "", /s3cr3t-value/);
  assert.match(checks[1]?.output_tail ?? "", /report names security \(require_all: false\)$/);
});

test("findings that say a dimension was skipped do not cover it; no dimensions, no checks", () => {
  const checks = checkCodeReview(
    stage({ dimensions: ["perf"] }),
    "## Code Review\n### perf\nNot reviewed.",
    [],
  );
  assert.equal(checks[0]?.passed, false);
  assert.deepEqual(checkCodeReview(stage({ dimensions: [] }), REPORT, []), []);
  assert.deepEqual(checkCodeReview(stage(undefined), null, []), []);
});

test("the session is asked for every dimension and for the report loom reads back; a merge session is not", () => {
  const verify = stage({ dimensions: ["security", "testing"] });
  const plan = {
    id: "PLAN-x",
    name: "X",
    path: "PLAN-x.md",
    metadata: { version: 1 as const, stages: [verify] },
    stages: [verify],
  };
  const signal = (kind: "stage" | "merge"): string =>
    buildSignal({ plan, stage: verify, kind, attempt: 1, branch: "loom/pr-1/PLAN-x/verify" });
  const text = signal("stage");
  assert.match(text, /## Review Dimensions\n\nYour review MUST explicitly address \*\*every\*\* dimension/);
  assert.match(text, /- \[ \] \*\*security\*\*\n- \[ \] \*\*testing\*\*/);
  assert.match(text, /## Code Review\n### security\n<what you checked and found>\n### testing/);
  assert.match(text, /\d+\. End your final message with the `## Code Review` report/);
  // The example report inside the prompt is not itself read as a report with findings.
  assert.equal(checkCodeReview(verify, text, []).filter((c) => c.passed).length, 0);
  assert.doesNotMatch(signal("merge"), /Review Dimensions|Code Review/);
});

test("the report may come before the last message: a Stop hook can ask the session for one more turn", () => {
  const event = (text: string) => ({
    type: "assistant" as const,
    line: { type: "assistant" as const, message: { id: text, content: [{ type: "text" as const, text }] } },
  });
  let o = observeStream(EMPTY_OBSERVATION, event("Working on it."));
  o = observeStream(o, event("Fixed.\n\n## Code Review\n### security\nNothing reaches a shell."));
  o = observeStream(o, event("Recorded my learnings."));
  assert.equal(o.reviewText, "Fixed.\n\n## Code Review\n### security\nNothing reaches a shell.");
  assert.equal(o.lastText, "Recorded my learnings.");
});

test("a report written a little differently still counts: numbered or marked headings, findings on the heading line", () => {
  const text = [
    "## Code Review Report",
    "### 1. **Security** ✅",
    "Nothing reaches a shell.",
    "### Testing: two new regression tests cover the fix",
    "### Wiring —",
  ].join("\n");
  const checks = checkCodeReview(stage({ dimensions: ["security", "testing", "wiring", "sec"] }), text, []);
  assert.deepEqual(
    checks.map((c) => [c.name, c.passed, c.output_tail.split("\n")[0]]),
    [
      ["security", true, "Nothing reaches a shell."],
      ["testing", true, "two new regression tests cover the fix"],
      [
        "wiring",
        false,
        'review dimension "wiring" was not addressed: the session\'s `## Code Review` report names Security ✅, Testing, Wiring',
      ],
      [
        "sec",
        false,
        'review dimension "sec" was not addressed: the session\'s `## Code Review` report names Security ✅, Testing, Wiring',
      ],
    ],
  );
});
