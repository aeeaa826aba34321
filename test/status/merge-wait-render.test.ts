import assert from "node:assert/strict";
import { test } from "node:test";
import { summarizeStatus } from "../../src/orchestrator/summarize-status.ts";
import { getStageActions, parseActionIdentifier } from "../../src/status/check-run-actions.ts";
import { renderPlanCheckRun } from "../../src/status/render-plan-check-run.ts";
import { renderStageCheckRun } from "../../src/status/render-stage-check-run.ts";
import { renderStatusComment } from "../../src/status/render-status-comment.ts";
import { T0, makePlanState } from "./make-plan-state.ts";
import type { StageInput } from "./make-plan-state.ts";

/* What people see while a stage waits for them to merge it (`auto_merge: false`). */

const CHECKED = "c0ffee1234567890abcdef0123456789abcdef01";

/** a passed on `CHECKED` and waits for a person; b depends on it; `a` as overridden. */
function waitingPlan(a: Partial<StageInput> = {}, others: StageInput[] = []) {
  return makePlanState([
    { id: "a", status: "needs-human-review", checkedSha: CHECKED, mergeWaitSince: T0, ...a },
    { id: "b", dependencies: ["a"] },
    ...others,
  ]);
}

test("a stage waiting for a person offers Merge (carrying its checked commit), Retry and Skip, within GitHub's limits", () => {
  const actions = getStageActions(waitingPlan().stages["a"]!);
  assert.deepEqual(
    actions.map((a) => [a.label, a.identifier]),
    [
      ["Merge", "merge:c0ffee12345678"],
      ["Retry", "retry"],
      ["Skip", "skip"],
    ],
  );
  for (const a of actions)
    assert.ok(a.label.length <= 20 && a.identifier.length <= 20 && a.description.length <= 40, a.identifier);
  assert.deepEqual(parseActionIdentifier(actions[0]?.identifier), { action: "merge", sha: "c0ffee12345678" });
});

test("a button identifier loom never made, or a Merge without its commit, is no command", () => {
  for (const identifier of [
    "merge",
    "merge:c0ffee",
    "merge:C0FFEE12345678",
    "merge:c0ffee123456789",
    "frob",
    undefined,
  ])
    assert.equal(parseActionIdentifier(identifier), null, String(identifier));
  assert.deepEqual(parseActionIdentifier("retry"), { action: "retry" });
});

test("without a known checked commit there is no Merge button, only Retry and Skip", () => {
  const stage = waitingPlan({ checkedSha: null }).stages["a"]!;
  assert.deepEqual(
    getStageActions(stage).map((a) => a.identifier),
    ["retry", "skip"],
  );
});

test("the waiting stage's check run asks for a person: the full checked commit, where it goes and the commands", () => {
  const view = renderStageCheckRun(waitingPlan(), "a");
  assert.equal(view.status, "completed");
  assert.equal(view.conclusion, "action_required");
  assert.equal(view.title, "a: waiting for a person to merge");
  assert.ok(
    view.summary.includes(
      `**Waiting for a person to merge** (\`auto_merge: false\`): the checks passed on \`${CHECKED}\`. Someone with write access merges exactly that commit into \`feature/demo\` with the Merge button or \`/loom merge a\` (\`/loom merge a c0ffee1\` names it)`,
    ),
    view.summary,
  );
  assert.match(view.summary, /Its dependents wait until it is merged\./);
});

test("the plan's check run and the status comment list the stage that waits, with its commit and command", () => {
  const state = waitingPlan();
  const plan = renderPlanCheckRun(state);
  const comment = renderStatusComment(state);
  const line = "- `a`: checks passed at c0ffee1; `/loom merge a` or the Merge button on its check run";
  for (const text of [plan.summary, comment]) {
    assert.ok(text.includes("**Waiting for a person to merge** (`auto_merge: false`"), text);
    assert.ok(text.includes(line), text);
  }
  assert.equal(plan.title, "Waiting for a person to merge: 0/2 stages merged");
  assert.match(comment, /`\/loom retry\|skip\|block\|unblock\|cancel\|merge <stage>`/);
  assert.match(
    summarizeStatus(state),
    /- `a`: waiting for a person to merge c0ffee1 \(`\/loom merge a`\), attempt/,
  );
});

test("a plan whose only open stage waits for a person asks for action; with a failed stage too it fails", () => {
  const waits = renderPlanCheckRun(waitingPlan());
  assert.deepEqual([waits.status, waits.conclusion], ["completed", "action_required"]);
  const alone = renderPlanCheckRun(
    makePlanState([{ id: "a", status: "needs-human-review", checkedSha: CHECKED, mergeWaitSince: T0 }]),
  );
  assert.deepEqual([alone.status, alone.conclusion], ["completed", "action_required"]);
  const failed = renderPlanCheckRun(waitingPlan({}, [{ id: "c", status: "completed-with-failures" }]));
  assert.deepEqual([failed.status, failed.conclusion], ["completed", "failure"]);
  const running = renderPlanCheckRun(waitingPlan({}, [{ id: "c", status: "executing" }]));
  assert.equal(running.status, "in_progress");
});
