import assert from "node:assert/strict";
import { test } from "node:test";
import type { CommandSource, PlanSpec } from "../../src/orchestrator/events.ts";
import type { SessionReport } from "../../src/orchestrator/session-report.ts";
import { renderPlanCheckRun } from "../../src/status/render-plan-check-run.ts";
import { renderStageCheckRun } from "../../src/status/render-stage-check-run.ts";
import { renderStatusComment } from "../../src/status/render-status-comment.ts";
import { Story, makePlan } from "./story.ts";

/*
 * `adjudication` (issue 33 item 6): a session that disputes one of its acceptance criteria waits
 * for a person, who amends the criterion for this run (`/loom amend`, bounded by
 * `max_amendments_per_stage`) or rejects the dispute (`/loom reject`).
 */

const CHECKED = "c0ffee0000000000000000000000000000000001";
const COMMENT: CommandSource = { kind: "comment", commentId: 77 };
const REASON = "tools/strict-lint does not exist in this repository";

/** Plan a → b; a has 2 acceptance criteria; `max`: the plan's `max_amendments_per_stage`. */
function plan(max?: number): PlanSpec {
  const spec = makePlan([
    ["a", []],
    ["b", ["a"]],
  ]);
  return {
    ...spec,
    ...(max === undefined ? {} : { maxAmendmentsPerStage: max }),
    stages: spec.stages.map((s) => (s.id === "a" ? { ...s, acceptanceCount: 2 } : s)),
  };
}

const REPORT: SessionReport = {
  usage: {
    turns: 3,
    inputTokens: 1,
    outputTokens: 1,
    cacheReadTokens: 0,
    cacheCreationTokens: 0,
    costUsd: 0.1,
    durationMs: 1000,
  },
  checks: [],
  deviations: [],
  learningsAdded: 0,
  dispute: { criterionIndex: 1, criterion: "./tools/strict-lint a.txt", reason: REASON },
};

/** The latest session of `id` ends with `outcome`, its checks on CHECKED, reporting `report`. */
function finish(
  story: Story,
  id: string,
  outcome: "completed" | "completed-with-failures" | "crashed",
  report?: SessionReport,
) {
  const attempt = story.attemptOf(id);
  const runId = 100 * attempt + id.length;
  story.send({ type: "run.dispatched", stageId: id, attempt, runId });
  story.send({ type: "run.started", stageId: id, attempt, runId });
  return story.send({
    type: "run.finished",
    stageId: id,
    attempt,
    runId,
    outcome,
    detail: outcome === "completed" ? "all checks pass" : "1 of 2 checks failed",
    headSha: CHECKED,
    ...(report === undefined ? {} : { report }),
  });
}

/** Stage a's session disputed criterion 2, which failed: a waits for a person. */
function disputed(max?: number): Story {
  const story = new Story(plan(max));
  finish(story, "a", "completed-with-failures", REPORT);
  return story;
}

function amend(
  story: Story,
  text: { n?: number; command?: string; sender?: string; writtenAt?: number } = {},
) {
  return story.send({
    type: "command.received",
    command: "amend",
    stageId: "a",
    sender: text.sender ?? "alice",
    source: COMMENT,
    writtenAt: text.writtenAt ?? story.at + 500,
    ...(text.n === undefined && "n" in text ? {} : { criterion: text.n ?? 2 }),
    amendedCommand: text.command ?? "test -f a.txt",
  });
}

const replyOf = (story: Story) => story.of("reply")[0];

/** alice's `/loom continue a <instructions>`. */
function continueA(story: Story, instructions: string) {
  return story.send({
    type: "command.received",
    command: "continue",
    stageId: "a",
    instructions,
    sender: "alice",
    source: COMMENT,
  });
}

test("a run that fails the criterion its session disputed waits for a person with the dispute and the checked commit", () => {
  const story = disputed();
  const a = story.stage("a");
  assert.equal(a.status, "needs-human-review");
  assert.equal(a.checkedSha, CHECKED);
  assert.deepEqual(a.dispute, {
    criterionIndex: 1,
    criterion: "./tools/strict-lint a.txt",
    reason: REASON,
    since: story.at,
    attempt: 1,
  });
  assert.equal(story.stage("b").status, "waiting-for-deps");
  const view = renderStageCheckRun(story.state, "a");
  assert.equal(view.conclusion, "action_required");
  assert.ok(
    view.summary.includes("**The session disputes acceptance criterion 2** `./tools/strict-lint a.txt`"),
  );
  assert.ok(view.summary.includes(REASON));
  assert.ok(view.summary.includes("`/loom amend a 2 <command>`"));
  assert.deepEqual(
    view.actions.map((action) => action.identifier),
    ["reject", "retry", "skip"],
  );
  assert.equal(renderPlanCheckRun(story.state).conclusion, "action_required");
});

test("a failed run without a dispute fails as before", () => {
  const story = new Story(plan());
  finish(story, "a", "completed-with-failures", { ...REPORT, dispute: undefined });
  assert.equal(story.stage("a").status, "completed-with-failures");
  assert.equal(story.stage("a").dispute, undefined);
});

test("a writer's /loom amend records the amendment and dispatches a check-only run with it, pinned to the disputed commit", () => {
  const story = disputed();
  const effects = amend(story);
  const a = story.stage("a");
  assert.deepEqual(a.amendments, [
    {
      criterionIndex: 1,
      was: "./tools/strict-lint a.txt",
      command: "test -f a.txt",
      by: "alice",
      at: story.at,
      sha: CHECKED,
    },
  ]);
  assert.equal(a.dispute, undefined);
  assert.equal(replyOf(story)?.reaction, "+1");
  const dispatch = effects.find((e) => e.type === "dispatchRun");
  assert.equal(dispatch?.type === "dispatchRun" ? dispatch.kind : "", "check");
  assert.deepEqual(dispatch?.type === "dispatchRun" ? dispatch.amendment : undefined, {
    checkedSha: CHECKED,
    amendments: [{ criterionIndex: 1, command: "test -f a.txt", by: "alice" }],
  });
  // The check run passes: a merges exactly the disputed commit, and b follows as usual.
  const done = finish(story, "a", "completed");
  const merge = done.find((e) => e.type === "mergeBranch");
  assert.equal(merge?.type === "mergeBranch" ? merge.sha : undefined, CHECKED);
  assert.equal(story.stage("a").amendCheck, undefined);
  const comment = renderStatusComment(story.state);
  assert.ok(comment.includes("**Amended acceptance criteria**"));
  assert.ok(
    comment.includes("`a` criterion 2: `test -f a.txt` instead of `./tools/strict-lint a.txt`, by @alice"),
  );
});

test("a check-only run that fails leaves the stage failed; a crashed one is retried as a check run", () => {
  const story = disputed();
  amend(story);
  finish(story, "a", "crashed");
  story.send({ type: "tick" }, 400_000);
  const retry = story.of("dispatchRun")[0];
  assert.equal(retry?.kind, "check");
  finish(story, "a", "completed-with-failures");
  assert.equal(story.stage("a").status, "completed-with-failures");
  assert.equal(story.stage("a").amendCheck, undefined);
});

const refusals: { name: string; act: (story: Story) => void; reason: RegExp }[] = [
  {
    name: "a comment written before the wait began",
    act: (story) => amend(story, { writtenAt: story.at - 1 }),
    reason: /started waiting for a decision after this comment was written/,
  },
  {
    name: "a criterion the stage does not have",
    act: (story) => amend(story, { n: 3 }),
    reason: /has no acceptance criterion 3: the disputed one is 2/,
  },
  {
    name: "an amendment past max_amendments_per_stage",
    act: (story) => {
      story.state.plan.maxAmendmentsPerStage = 0;
      amend(story);
    },
    reason: /has had 0 of the 0 amendments its plan allows \(`adjudication.max_amendments_per_stage`\)/,
  },
];

for (const c of refusals) {
  test(`/loom amend is refused with the reason for ${c.name}, and nothing runs`, () => {
    const story = disputed();
    c.act(story);
    const reply = replyOf(story);
    assert.equal(reply?.reaction, "-1");
    assert.match(reply?.body ?? "", c.reason);
    assert.equal(story.stage("a").status, "needs-human-review");
    assert.deepEqual(story.of("dispatchRun"), []);
  });
}

test("without adjudication in the plan, a stage takes 3 amendments (the reference's default), then refuses with the reason", () => {
  const story = disputed();
  for (let round = 1; round <= 3; round++) {
    amend(story, { command: `test -f a${round}.txt` });
    assert.equal(replyOf(story)?.reaction, "+1", `amendment ${round}`);
    finish(story, "a", "completed-with-failures", REPORT);
    assert.equal(story.stage("a").status, "completed-with-failures", "a check run disputes nothing");
    // A new session disputes again.
    story.send({
      type: "command.received",
      command: "retry",
      stageId: "a",
      sender: "alice",
      source: COMMENT,
    });
    finish(story, "a", "completed-with-failures", REPORT);
    assert.equal(story.stage("a").status, "needs-human-review");
  }
  amend(story);
  assert.match(replyOf(story)?.body ?? "", /has had 3 of the 3 amendments/);
  assert.equal(story.stage("a").amendments?.length, 3);
});

test("/loom amend and /loom reject are refused for a stage that waits for no decision", () => {
  const story = new Story(plan());
  finish(story, "a", "completed-with-failures");
  amend(story);
  assert.match(
    replyOf(story)?.body ?? "",
    /`a` is completed-with-failures: no disputed criterion waits for a decision/,
  );
  story.send({ type: "command.received", command: "reject", stageId: "a", sender: "alice", source: COMMENT });
  assert.equal(replyOf(story)?.reaction, "-1");
});

test("/loom reject keeps the criterion and blocks the stage, as the reference's human-review --reject; retry runs it again", () => {
  const story = disputed();
  story.send({ type: "command.received", command: "reject", stageId: "a", sender: "alice", source: COMMENT });
  const a = story.stage("a");
  assert.equal(a.status, "blocked");
  assert.equal(a.blockedBy, "command");
  assert.equal(a.dispute, undefined);
  assert.match(a.notes.at(-1)?.text ?? "", /dispute of criterion 2 rejected by @alice: the criterion stands/);
  story.send({ type: "command.received", command: "retry", stageId: "a", sender: "alice", source: COMMENT });
  assert.equal(story.of("dispatchRun")[0]?.kind, "stage");
});

test("/loom amend is refused while the caller pins a release whose stage workflow has no check runs", () => {
  const caller = { kind: "older" as const, release: "0.3.0", note: "Move the pin to loom 0.4.0." };
  const story = new Story(plan(), { settings: { caller } });
  finish(story, "a", "completed-with-failures", REPORT);
  amend(story);
  assert.match(
    replyOf(story)?.body ?? "",
    /pins loom 0.3.0, whose stage workflow cannot re-run a stage's checks/,
  );
});

test("the status comment lists the dispute with the session's reason in a code span: text, never markdown, a link or a mention", () => {
  const story = new Story(plan());
  const reason = "see ![x](https://evil.example/p.png) and ping @octocat";
  finish(story, "a", "completed-with-failures", { ...REPORT, dispute: { ...REPORT.dispute!, reason } });
  const comment = renderStatusComment(story.state);
  assert.ok(
    comment.includes(
      "- `a`: criterion 2 `./tools/strict-lint a.txt` disputed (`see ![x](https://evil.example/p.png) and ping @octocat`); `/loom amend a 2 <command>` or `/loom reject a`",
    ),
    comment,
  );
});

test("a check run that crashed for good gives way to a person's /loom retry: a new stage session, not a recovery of the check run", () => {
  const story = disputed();
  amend(story);
  finish(story, "a", "crashed");
  story.send({ type: "command.received", command: "retry", stageId: "a", sender: "alice", source: COMMENT });
  const dispatch = story.of("dispatchRun")[0];
  assert.equal(dispatch?.kind, "stage");
});

test("the amendment holds for the stage's later sessions: a retry and a continue carry it, a merge session does not", () => {
  const story = disputed();
  amend(story);
  finish(story, "a", "completed-with-failures");
  const carried = {
    checkedSha: CHECKED,
    amendments: [{ criterionIndex: 1, command: "test -f a.txt", by: "alice" }],
  };
  story.send({ type: "command.received", command: "retry", stageId: "a", sender: "alice", source: COMMENT });
  const retry = story.of("dispatchRun")[0];
  assert.equal(retry?.kind, "stage");
  assert.deepEqual(retry?.amendment, carried);
  finish(story, "a", "completed-with-failures");
  continueA(story, "make it pass");
  const continued = story.of("dispatchRun")[0];
  assert.equal(continued?.kind, "continue");
  assert.deepEqual(continued?.amendment, carried);
  // A stage never amended carries nothing on its retry.
  const plain = new Story(plan());
  finish(plain, "a", "completed-with-failures");
  plain.send({ type: "command.received", command: "retry", stageId: "a", sender: "alice", source: COMMENT });
  const plainRetry = plain.of("dispatchRun")[0];
  assert.equal(plainRetry?.attempt, 2);
  assert.equal(plainRetry?.amendment, undefined);
});

test("/loom continue after a check run resumes the disputing session, not the check run", () => {
  const story = disputed();
  amend(story);
  finish(story, "a", "completed-with-failures");
  continueA(story, "make strict-lint pass");
  const dispatch = story.of("dispatchRun")[0];
  assert.equal(dispatch?.kind, "continue");
  assert.equal(dispatch?.previousRunId, 101, "run 101: attempt 1, the session that disputed");
});

test("a check run cancelled on GitHub gives way to a person's /loom retry, which runs a new session", () => {
  const story = disputed();
  amend(story);
  const attempt = story.attemptOf("a");
  story.send({ type: "run.dispatched", stageId: "a", attempt, runId: 900 });
  story.send({
    type: "run.finished",
    stageId: "a",
    attempt,
    runId: 900,
    outcome: "cancelled",
    detail: "cancelled",
  });
  assert.equal(story.stage("a").status, "blocked");
  story.send({ type: "command.received", command: "retry", stageId: "a", sender: "alice", source: COMMENT });
  assert.equal(story.of("dispatchRun")[0]?.kind, "stage");
  assert.equal(story.stage("a").amendCheck, undefined);
});
