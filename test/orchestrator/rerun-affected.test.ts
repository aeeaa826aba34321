import { test } from "node:test";
import assert from "node:assert/strict";
import { summarizeStatus } from "../../src/orchestrator/summarize-status.ts";
import { renderPlanCheckRun } from "../../src/status/render-plan-check-run.ts";
import { renderStatusComment } from "../../src/status/render-status-comment.ts";
import { costReport } from "./cost-report.ts";
import { finishDiamond, passWith } from "./diamond.ts";
import type { Story } from "./story.ts";

const PUSHED = "9999999000000000000000000000000000000009";

/** A person pushes `PUSHED` on the head loom knows, changing `paths` (null: not known). */
function push(story: Story, paths: string[] | null | undefined, headSha = PUSHED) {
  return story.send({
    type: "head.moved",
    headSha,
    before: story.state.pr.headSha,
    ...(paths === undefined ? {} : { changedPaths: paths }),
  });
}

function rerunAffected(story: Story, source: "comment" | "button" = "comment") {
  return story.send({
    type: "command.received",
    command: "rerun",
    sender: "octocat",
    source:
      source === "comment" ? { kind: "comment", commentId: 5 } : { kind: "check-run-button", checkRunId: 8 },
  });
}

test("a person's push under b's files affects b and d (downstream): listed with the path and the forecast, nothing runs", () => {
  const story = finishDiamond();
  push(story, ["src/b/fix.ts", "README.md"]);
  assert.deepEqual(story.state.affected?.stages, [
    { id: "b", why: "the push of 9999999 changed `src/b/fix.ts`", push: PUSHED },
    { id: "d", why: "downstream of `b`", push: PUSHED },
  ]);
  assert.deepEqual(story.dispatched(), [], "nothing is spent before a person asks");
  assert.ok(story.of("syncStatusComment").length > 0, "the status comment shows it");
  const view = renderPlanCheckRun(story.state);
  assert.equal(view.conclusion, "success", "an offer, not a verdict: every stage passed");
  assert.match(view.title, /2 completed stages affected by a push/);
  assert.match(view.summary, /\*\*Affected by the push of 9999999\*\* \(2 completed stages, forecast \$/);
  // Backticks of the reasons are shown as quotes: a path is the pusher's text, never markup.
  assert.match(view.summary, /- `b`: the push of 9999999 changed 'src\/b\/fix.ts'\n- `d`: downstream of 'b'/);
  assert.deepEqual(
    view.actions.map((a) => [a.label, a.identifier]),
    [["Re-run affected", "rerun-affected"]],
  );
  assert.match(renderStatusComment(story.state), /`\/loom rerun affected`/);
  assert.match(
    summarizeStatus(story.state),
    /- `d`: completed, merged, affected, attempt 1\nAffected by a change/,
  );
});

test("/loom rerun affected re-runs b, then d, never a or c; the set is cleared and each stage says why", () => {
  const story = finishDiamond();
  push(story, ["src/b/fix.ts"]);
  rerunAffected(story);
  assert.equal(story.of("reply")[0]?.reaction, "+1");
  assert.deepEqual(story.dispatched(), ["b"]);
  assert.equal(story.of("createBranch")[0]?.reset, true);
  assert.equal(story.stage("d").status, "waiting-for-deps");
  assert.equal(story.state.affected, null);
  assert.match(
    story.stage("b").sessions.at(-1)?.rerunWhy ?? "",
    /push of 9999999 changed `src\/b\/fix.ts`; re-run by @octocat/,
  );
  passWith(story, "b", ["src/b/fix.ts"]);
  assert.deepEqual(story.dispatched(), ["d"], "d follows, as part of the affected set");
  passWith(story, "d", []);
  assert.deepEqual(story.dispatched(), []);
  for (const id of ["a", "c"]) assert.equal(story.stage(id).sessions.length, 1, `${id} never re-ran`);
  assert.equal(renderPlanCheckRun(story.state).conclusion, "success");
});

test("a push that touches no completed stage's files changes nothing: no affected set, no button", () => {
  const story = finishDiamond();
  push(story, ["README.md"]);
  assert.equal(story.state.affected ?? null, null);
  assert.deepEqual(renderPlanCheckRun(story.state).actions, []);
  rerunAffected(story);
  assert.equal(story.of("reply")[0]?.reaction, "-1");
  assert.match(story.of("reply")[0]?.body ?? "", /no completed stage of PLAN-demo is affected/);
});

test("a push whose changed paths are unknown affects every completed stage, saying why", () => {
  const story = finishDiamond();
  push(story, null);
  assert.deepEqual(
    story.state.affected?.stages.map((s) => s.id),
    ["a", "b", "c", "d"],
  );
  assert.match(story.state.affected?.stages[0]?.why ?? "", /the paths the change touched are not known/);
});

test("a second push adds to the affected set; rerun: affected in .github/loom.yml starts it at once", () => {
  const story = finishDiamond();
  push(story, ["src/b/x.ts"]);
  push(story, ["src/c.ts"], "8888888000000000000000000000000000000008");
  assert.deepEqual(
    story.state.affected?.stages.map((s) => s.id),
    ["b", "c", "d"],
  );
  assert.equal(story.state.affected?.cause, "the push of 9999999, the push of 8888888");

  const auto = finishDiamond({ settings: { rerunAffected: true } });
  push(auto, ["src/c.ts"]);
  assert.deepEqual(auto.dispatched(), ["c"]);
  assert.match(auto.stage("c").sessions.at(-1)?.rerunWhy ?? "", /re-run by `rerun: affected`/);
});

test("an affected re-run that does not fit the budget waits with the reason; /loom budget +N releases it", () => {
  const story = finishDiamond({ settings: { planBudgetUsd: 4.5 } });
  // Every stage cost $1 so far (reported on its one run): the plan spent $4 of $4.50.
  for (const id of ["a", "b", "c", "d"]) {
    const session = story.stage(id).sessions[0];
    if (session) session.report = costReport(1);
  }
  push(story, ["src/b/x.ts"]);
  assert.match(
    renderPlanCheckRun(story.state).summary,
    /forecast \$2\.00: each stage at what it cost before/,
  );
  rerunAffected(story);
  assert.deepEqual(story.dispatched(), []);
  assert.equal(story.state.budgetWait?.stageId, "b");
  assert.match(story.stage("b").notes.at(-1)?.text ?? "", /waiting for budget/);
  story.send({
    type: "command.received",
    command: "budget",
    amountUsd: 5,
    sender: "octocat",
    source: { kind: "comment", commentId: 6 },
  });
  assert.deepEqual(story.dispatched(), ["b"]);
});

test("a push that proves to be loom's own merge (its webhook came before the merge's answer) affects nothing after all", () => {
  const story = finishDiamond();
  story.command("retry", "c");
  story.run("c", "completed");
  // The merge's push is seen first, as a push nobody claims yet: what it changed looks like a person's.
  push(story, ["src/d/shared.ts"]);
  assert.deepEqual(
    story.state.affected?.stages.map((s) => s.id),
    ["d"],
  );
  story.send({
    type: "merge.finished",
    stageId: "c",
    outcome: "merged",
    sha: PUSHED,
    changedPaths: ["src/d/shared.ts"],
    detail: "",
  });
  assert.equal(story.state.affected, null);
  assert.deepEqual(story.dispatched(), ["d"], "d runs as c's re-run changed its files, not as affected");
});
