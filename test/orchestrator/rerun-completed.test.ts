import { test } from "node:test";
import assert from "node:assert/strict";
import { listUsageLines } from "../../src/status/list-usage-lines.ts";
import { renderStageCheckRun } from "../../src/status/render-stage-check-run.ts";
import { renderStatusComment } from "../../src/status/render-status-comment.ts";
import { costReport } from "./cost-report.ts";
import { Story } from "./story.ts";
import { finishDiamond, makeDiamond, passWith } from "./diamond.ts";

function retry(story: Story, stageId: string, only = false) {
  return story.send({
    type: "command.received",
    command: "retry",
    stageId,
    ...(only ? { only: true as const } : {}),
    sender: "octocat",
    source: { kind: "comment", commentId: 91 },
  });
}

test("/loom retry on a completed, merged stage runs it again from the current head, its dependents staying merged meanwhile", () => {
  const story = finishDiamond();
  retry(story, "a");
  assert.equal(story.of("reply")[0]?.reaction, "+1");
  const [branch] = story.of("createBranch");
  assert.deepEqual(
    { stage: branch?.stageId, reset: branch?.reset, from: branch?.from },
    { stage: "a", reset: true, from: "feature/demo" },
    "the stage branch is moved to the merge point's head first",
  );
  const [dispatch] = story.of("dispatchRun");
  assert.deepEqual(
    { stage: dispatch?.stageId, kind: dispatch?.kind, attempt: dispatch?.attempt },
    {
      stage: "a",
      kind: "stage",
      attempt: 2,
    },
  );
  assert.equal(story.stage("a").merged, false);
  assert.equal(story.stage("a").sessions.at(-1)?.rerunWhy, "retry requested by @octocat");
  for (const id of ["b", "c", "d"]) assert.equal(story.stage(id).merged, true, `${id} stays merged`);
});

test("a retried stage's new merge re-runs only the dependents whose files it changed, and theirs in turn", () => {
  const story = finishDiamond();
  retry(story, "a");
  passWith(story, "a", ["src/a/one.ts", "src/b/shared.ts"]);
  assert.deepEqual(story.dispatched(), ["b"], "b's files changed; c's did not");
  assert.equal(story.stage("c").merged, true);
  assert.match(story.stage("b").notes.at(-2)?.text ?? "", /a's re-run changed `src\/b\/shared.ts`/);
  assert.match(
    story
      .stage("a")
      .notes.map((n) => n.text)
      .join("\n"),
    /dependents running again: `b`[\s\S]*left as they are .*`c`/,
  );
  assert.equal(story.of("createBranch")[0]?.reset, true);
  // b's new merge changes nothing under d's files: d stays.
  passWith(story, "b", ["src/b/two.ts"]);
  assert.deepEqual(story.dispatched(), []);
  assert.equal(story.stage("d").merged, true);
  assert.equal(story.stage("d").sessions.length, 1);
});

test("a re-run's merge that changes a dependent's files re-runs it after every dependency it waits for", () => {
  const story = finishDiamond();
  retry(story, "a");
  passWith(story, "a", ["src/b/x.ts", "src/c.ts"]);
  assert.deepEqual(story.dispatched(), ["b", "c"]);
  passWith(story, "b", ["src/d/from-b.ts"]);
  assert.equal(story.stage("d").status, "waiting-for-deps", "d waits for c, which runs again too");
  assert.deepEqual(story.dispatched(), []);
  passWith(story, "c", ["src/c.ts"]);
  assert.deepEqual(story.dispatched(), ["d"]);
  assert.match(story.stage("d").sessions.at(-1)?.rerunWhy ?? "", /b's re-run changed `src\/d\/from-b.ts`/);
});

test("/loom retry <stage> --only runs just that stage whatever its merge changes", () => {
  const story = finishDiamond();
  retry(story, "a", true);
  assert.match(story.stage("a").notes.at(-2)?.text ?? "", /\(this stage only\)/);
  passWith(story, "a", ["src/b/x.ts", "src/c.ts"]);
  assert.deepEqual(story.dispatched(), []);
  for (const id of ["b", "c", "d"]) assert.equal(story.stage(id).sessions.length, 1);
});

test("a re-run with nothing new to merge re-runs no dependent; one whose changed paths are unknown re-runs them all, saying so", () => {
  const story = finishDiamond();
  retry(story, "a");
  story.run("a", "completed");
  story.merge("a", "nothing-to-merge");
  assert.deepEqual(story.dispatched(), []);

  retry(story, "a");
  story.run("a", "completed");
  story.merge("a");
  assert.deepEqual(story.dispatched(), ["b", "c"]);
  assert.match(story.stage("b").notes.at(-2)?.text ?? "", /the paths the change touched are not known/);
});

test("a dependent without files re-runs when the re-run changed a path its own merge changed", () => {
  const plan = makeDiamond();
  const story = new Story({ ...plan, stages: plan.stages.map((spec) => ({ ...spec, files: [] })) });
  passWith(story, "a", ["lib/a.ts"]);
  passWith(story, "b", ["lib/b.ts"]);
  passWith(story, "c", ["lib/c.ts"]);
  passWith(story, "d", ["lib/d.ts"]);
  retry(story, "a");
  passWith(story, "a", ["lib/c.ts"]);
  assert.deepEqual(story.dispatched(), ["c"]);
});

test("the stage's check run says why it runs again, and its sessions and cost tables mark the re-run's attempts", () => {
  const story = finishDiamond();
  retry(story, "a");
  story.run("a", "completed", "", {
    usage: {
      turns: 3,
      inputTokens: 10,
      outputTokens: 5,
      cacheReadTokens: 0,
      cacheCreationTokens: 0,
      costUsd: 0.25,
      durationMs: 1000,
    },
    checks: [],
    deviations: [],
    learningsAdded: 0,
  });
  const view = renderStageCheckRun(story.state, "a");
  assert.match(view.summary, /\*\*Re-run:\*\* retry requested by @&#8203;octocat/);
  assert.match(view.summary, /\| 2 \| stage \(re-run\) \| completed \|/);
  assert.match(view.summary, /\| 2 \| stage \(re-run\) \| .*\$0\.25/);
});

test("the status comment and loom usage say which stages ran again and why", () => {
  const story = finishDiamond();
  retry(story, "a", true);
  story.run("a", "completed", "", costReport(0.1));
  assert.match(renderStatusComment(story.state), /\| `a` \|.*\| re-run: retry requested by @&#8203;octocat/);
  const lines = listUsageLines({ repo: "o/r", pr: 7 }, story.state).filter((l) => l.stage === "a");
  assert.deepEqual(
    lines.map((l) => [l.attempt, l.rerun_why, l.cost_usd]),
    [[2, "retry requested by @octocat", 0.1]],
  );
});
