import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import type { StageResult } from "../../src/artifacts/stage-result.ts";
import { pullRequestPayload } from "../support/webhook-payloads.ts";
import { completeRun, startHarness } from "./loom-harness.ts";
import type { Harness } from "./loom-harness.ts";
import { passingResult } from "./stage-results.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

async function finishStage(harness: Harness, stageId: string, result: StageResult): Promise<void> {
  const dispatch = harness.fake.dispatches.find((d) => d.inputs["stage_id"] === stageId);
  assert.ok(dispatch, `stage ${stageId} was dispatched`);
  await completeRun(harness, dispatch, result);
}

const added = {
  category: "mistake",
  summary: "The pool must be closed in after() or node --test hangs",
  detail: "node --test waits for open handles; close the database pool in an after() hook of every suite.",
  tags: ["testing"],
  scope: "test/**",
  criteria_met: ["verified"],
  plan_id: "PLAN-diamond",
  stage_id: "a",
  attempt: 1,
  recorded_at: "2026-11-20T10:00:00.000Z",
} as const;

/** The latest summary GitHub holds for a check run of that name. */
function checkRunSummary(harness: Harness, name: string): string {
  const run = harness.fake.checkRuns.findLast((r) => r["name"] === name);
  assert.ok(run, `a check run ${name}`);
  return (run["output"] as { summary: string }).summary;
}

test("a stage's check run lists the learnings its prompt carried and the ones it added; the status comment counts them with the deviations", async () => {
  h = await startHarness();
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));
  await finishStage(h, "a", {
    ...passingResult("a"),
    deviations: ["[DEVIATION Rule 2: used fetch instead of axios]"],
    learnings: {
      accepted: [{ ...added, tags: [...added.tags], criteria_met: [...added.criteria_met] }],
      rejected: [],
    },
    learnings_given: [
      { id: "2026-11-01-setup-0a1b2c3d", summary: "Run migrations before the API tests" },
      { id: "2026-10-12-api-99aa88bb", summary: "The API client retries 502 by itself" },
    ],
  });
  const summary = checkRunSummary(h, "loom: a");
  assert.match(
    summary,
    /### Deviations \(1\)\n\n- attempt 1: \[DEVIATION Rule 2: used fetch instead of axios\]/,
  );
  assert.match(
    summary,
    /### Learnings given \(2\)\n\n- Run migrations before the API tests \(`2026-11-01-setup-0a1b2c3d`, attempt 1\)\n- The API client retries 502 by itself \(`2026-10-12-api-99aa88bb`, attempt 1\)/,
  );
  assert.match(
    summary,
    /### Learnings added \(1\)\n\n- attempt 1: The pool must be closed in after\(\) or node --test hangs/,
  );
  const comment = h.fake.comments.findLast((c) => String(c["body"]).includes("loom:status:"));
  assert.ok(comment, "the status comment");
  assert.match(String(comment["body"]), /\*\*Deviations:\*\* 1 · \*\*Learnings:\*\* 1 added, 2 given/);
  await h.finish();
  h = undefined;
});
