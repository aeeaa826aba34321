import { test } from "node:test";
import assert from "node:assert/strict";
import { step, nextWakeAt } from "../../src/orchestrator/step.ts";
import { CANCEL_GRACE_MS } from "../../src/orchestrator/handle-tick.ts";
import { KEY, Story, makePlan } from "./story.ts";

const diamond = makePlan([
  ["a", []],
  ["b", ["a"]],
  ["c", ["a"]],
  ["d", ["b", "c"]],
]);

test("diamond plan, all green: each stage starts only after its dependencies are completed and merged", () => {
  const story = new Story(diamond);
  assert.deepEqual(story.dispatched(), ["a"]);
  assert.deepEqual(
    story.of("createBranch"),
    [],
    "a first attempt writes nothing before its dispatch: its publish job creates the stage branch",
  );
  assert.deepEqual(story.of("dispatchRun")[0], {
    type: "dispatchRun",
    key: `${KEY}:a:1:dispatch`,
    stageId: "a",
    attempt: 1,
    kind: "stage",
    branch: "loom/pr-7/PLAN-demo/a",
    previousRunId: null,
  });
  assert.equal(story.stage("a").status, "executing");
  assert.equal(story.stage("a").sessions[0]?.status, "spawning");

  story.run("a", "completed");
  assert.equal(story.stage("a").status, "completed");
  assert.equal(story.stage("a").merged, false);
  assert.deepEqual(story.of("mergeBranch"), [
    {
      type: "mergeBranch",
      key: `${KEY}:a:1:merge:1`,
      stageId: "a",
      head: "loom/pr-7/PLAN-demo/a",
      base: "feature/demo",
      message: "loom: merge stage a (Stage a) of PLAN-demo",
    },
  ]);
  assert.deepEqual(story.dispatched(), [], "b and c wait until a is merged, not just completed");

  story.merge("a");
  assert.equal(story.stage("a").merged, true);
  assert.deepEqual(story.dispatched(), ["b", "c"]);

  story.pass("b");
  assert.deepEqual(story.dispatched(), [], "d still waits for c");
  assert.equal(story.stage("d").status, "waiting-for-deps");
  story.pass("c");
  assert.deepEqual(story.dispatched(), ["d"]);
  story.pass("d");
  for (const id of ["a", "b", "c", "d"]) {
    assert.equal(story.stage(id).status, "completed");
    assert.equal(story.stage(id).merged, true);
  }
  assert.deepEqual(story.state.rejected, []);
});

test("a crash retries after 30 s, a second after 60 s, then the stage succeeds as a recovery session", () => {
  const story = new Story(makePlan([["a", []]]));
  story.run("a", "crashed", "runner lost");
  const crashedAt = story.at;
  assert.equal(story.stage("a").status, "blocked");
  assert.equal(story.stage("a").retryAt, crashedAt + 30_000);
  assert.deepEqual(story.of("setTimer"), [
    { type: "setTimer", key: `${KEY}:a:1:retry`, at: crashedAt + 30_000 },
  ]);
  assert.equal(nextWakeAt(story.state), crashedAt + 30_000);

  story.send({ type: "tick" }, 10_000);
  assert.deepEqual(story.dispatched(), [], "not before the backoff is over");
  story.send({ type: "tick" }, 20_000);
  assert.deepEqual(story.dispatched(), ["a"]);
  assert.deepEqual(
    story.of("createBranch"),
    [
      {
        type: "createBranch",
        key: `${KEY}:a:2:branch`,
        stageId: "a",
        branch: "loom/pr-7/PLAN-demo/a",
        from: "feature/demo",
      },
    ],
    "a retry makes sure the branch exists (the crashed attempt may not have published), before its dispatch",
  );
  assert.deepEqual(
    story.effects.filter((e) => e.type === "createBranch" || e.type === "dispatchRun").map((e) => e.type),
    ["createBranch", "dispatchRun"],
  );
  const second = story.of("dispatchRun")[0]!;
  assert.equal(second.kind, "recovery");
  assert.equal(second.attempt, 2);
  assert.equal(second.previousRunId, story.stage("a").sessions[0]?.runId);

  story.run("a", "timed-out", "job timeout");
  assert.equal(story.stage("a").retryAt, story.at + 60_000);
  story.send({ type: "tick" }, 60_000);
  assert.deepEqual(story.dispatched(), ["a"]);
  story.pass("a");
  assert.equal(story.stage("a").status, "completed");
  assert.equal(story.stage("a").merged, true);
  assert.equal(story.stage("a").attempt, 3);
});

test("three crashes leave the stage blocked with no more timers, until a person retries", () => {
  const story = new Story(makePlan([["a", []]]));
  story.run("a", "crashed");
  story.send({ type: "tick" }, 30_000);
  story.run("a", "hung");
  story.send({ type: "tick" }, 60_000);
  story.run("a", "crashed");
  const stage = story.stage("a");
  assert.equal(stage.status, "blocked");
  assert.equal(stage.blockedBy, "retries");
  assert.equal(stage.retryAt, null);
  assert.deepEqual(story.of("setTimer"), []);
  assert.match(stage.notes.at(-1)?.text ?? "", /gave up after 3 failed attempts/);
  story.send({ type: "tick" }, 3_600_000);
  assert.deepEqual(story.dispatched(), [], "no automatic retry after the last attempt");

  story.command("retry", "a");
  assert.deepEqual(story.of("reply")[0]?.reaction, "+1");
  assert.deepEqual(story.dispatched(), ["a"]);
  assert.equal(story.stage("a").failures, 0);
});

test("a merge conflict gets a merge session; when it completes the merge is retried and the stage is merged", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", ["a"]],
    ]),
  );
  story.run("a", "completed");
  story.merge("a", "conflict");
  assert.equal(story.stage("a").status, "merge-conflict");
  const mergeRun = story.of("dispatchRun")[0]!;
  assert.equal(mergeRun.kind, "merge");
  assert.equal(mergeRun.stageId, "a");
  assert.equal(mergeRun.attempt, 2);
  assert.deepEqual(story.of("createBranch"), []);
  assert.deepEqual(story.dispatched(), ["a"], "b does not start on a conflicted dependency");

  story.run("a", "completed");
  assert.equal(story.of("mergeBranch").length, 1);
  assert.equal(story.of("mergeBranch")[0]?.key, `${KEY}:a:2:merge:2`);
  story.merge("a");
  assert.equal(story.stage("a").status, "completed");
  assert.equal(story.stage("a").merged, true);
  assert.equal(story.stage("a").attempt, 1, "merge sessions are not counted as attempts");
  assert.deepEqual(story.dispatched(), ["b"]);
});

test("a merge refused for another reason is merge-blocked until a person retries it", () => {
  const story = new Story(makePlan([["a", []]]));
  story.run("a", "completed");
  story.merge("a", "error");
  assert.equal(story.stage("a").status, "merge-blocked");
  story.command("retry", "a");
  assert.equal(story.of("mergeBranch").length, 1);
  story.merge("a");
  assert.equal(story.stage("a").merged, true);
});

test("a skip label on a middle stage lets the next stage start, and its notes say a person skipped it", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", ["a"]],
      ["c", ["b"]],
    ]),
  );
  story.pass("a");
  assert.deepEqual(story.dispatched(), ["b"]);
  const runId = 4242;
  story.send({ type: "run.dispatched", stageId: "b", attempt: 1, runId });
  story.send({ type: "labels.changed", labels: ["loom:skip:b", "bug"] });
  assert.deepEqual(story.of("cancelRun"), [
    { type: "cancelRun", key: `${KEY}:b:1:cancel`, stageId: "b", runId },
  ]);
  assert.equal(story.stage("b").status, "skipped");
  assert.equal(story.stage("b").skippedBy, "label");
  assert.deepEqual(story.dispatched(), ["c"]);
  assert.match(
    story
      .stage("c")
      .notes.map((n) => n.text)
      .join("\n"),
    /b skipped by a person/,
  );
  // Removing the label does not bring a skipped stage back.
  story.send({ type: "labels.changed", labels: [] });
  assert.equal(story.stage("b").status, "skipped");
});

test("hold stops every dispatch; releasing it starts what was queued", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", []],
    ]),
    { labels: ["loom:hold"] },
  );
  assert.deepEqual(story.dispatched(), []);
  assert.equal(story.state.hold, true);
  assert.equal(story.stage("a").status, "queued");
  story.send({ type: "labels.changed", labels: ["loom:hold", "wip"] });
  assert.deepEqual(story.dispatched(), []);
  story.send({ type: "labels.changed", labels: ["wip"] });
  assert.deepEqual(story.dispatched(), ["a", "b"]);
});

test("no more than maxParallel sessions run at once; a finished one makes room", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", []],
      ["c", []],
    ]),
    { settings: { maxParallel: 2 } },
  );
  assert.deepEqual(story.dispatched(), ["a", "b"]);
  story.run("a", "completed");
  assert.deepEqual(story.dispatched(), ["c"]);
});

test("a block label stops a stage and removing it releases the stage", () => {
  const story = new Story(makePlan([["a", []]]));
  story.send({ type: "labels.changed", labels: ["loom:block:a"] });
  assert.equal(story.stage("a").status, "blocked");
  assert.equal(story.stage("a").blockedBy, "label");
  assert.equal(story.stage("a").sessions[0]?.status, "cancelled");
  story.command("unblock", "a");
  assert.equal(story.of("reply")[0]?.reaction, "-1", "a label block is lifted by removing the label");
  story.send({ type: "labels.changed", labels: [] });
  assert.equal(story.stage("a").status, "executing");
  assert.deepEqual(story.dispatched(), ["a"]);
});

test("acceptance failures are not retried automatically; a person's retry runs the stage again", () => {
  const story = new Story(makePlan([["a", []]]));
  story.run("a", "completed-with-failures", "cargo test failed");
  assert.equal(story.stage("a").status, "completed-with-failures");
  story.send({ type: "tick" }, 600_000);
  assert.deepEqual(story.dispatched(), []);
  assert.equal(nextWakeAt(story.state), null);
  story.command("retry", "a");
  assert.deepEqual(story.dispatched(), ["a"]);
  assert.equal(story.of("dispatchRun")[0]?.kind, "stage");
});

test("a handoff dispatches a recovery session at once, handing over the previous run", () => {
  const story = new Story(makePlan([["a", []]]));
  story.run("a", "needs-handoff", "context at 92%");
  assert.equal(story.stage("a").status, "executing");
  const recovery = story.of("dispatchRun")[0]!;
  assert.equal(recovery.kind, "recovery");
  assert.equal(recovery.previousRunId, story.stage("a").sessions[0]?.runId);
  assert.equal(story.stage("a").failures, 0, "a handoff is not a failure");
});

test("a silent session is cancelled as hung after the heartbeat timeout and retried", () => {
  const story = new Story(makePlan([["a", []]]), { settings: { heartbeatTimeoutMs: 300_000 } });
  story.send({ type: "run.dispatched", stageId: "a", attempt: 1, runId: 77 });
  const heartbeat = {
    timestamp: 0,
    contextPercent: 10,
    lastTool: "Edit",
    activity: null,
    turns: 3,
    costUsd: 0.1,
  };
  story.send({ type: "heartbeat.seen", stageId: "a", attempt: 1, heartbeat }, 60_000);
  assert.equal(story.stage("a").sessions[0]?.status, "running");
  assert.equal(nextWakeAt(story.state), story.at + 300_000);
  story.send({ type: "tick" }, 200_000);
  assert.deepEqual(story.of("cancelRun"), []);
  story.send({ type: "tick" }, 100_000);
  assert.deepEqual(story.of("cancelRun"), [
    { type: "cancelRun", key: `${KEY}:a:1:cancel`, stageId: "a", runId: 77 },
  ]);
  assert.equal(story.stage("a").sessions[0]?.status, "hung");
  assert.equal(story.stage("a").retryAt, story.at + 30_000);
  // The cancelled run reports back later: recorded, nothing changes.
  story.send({ type: "run.finished", stageId: "a", attempt: 1, runId: 77, outcome: "cancelled", detail: "" });
  assert.equal(story.stage("a").status, "blocked");
  assert.match(story.state.rejected.at(-1)?.reason ?? "", /already hung/);
});

test("a run queued on GitHub waiting for a runner is never taken for hung; once it starts, its heartbeats count", () => {
  const story = new Story(makePlan([["a", []]]), { settings: { heartbeatTimeoutMs: 300_000 } });
  story.send({ type: "run.dispatched", stageId: "a", attempt: 1, runId: 77 });
  // Not the heartbeat deadline: the runner-wait notice (5 min after the dispatch by default).
  assert.equal(nextWakeAt(story.state), story.state.stages["a"]!.sessions[0]!.dispatchedAt + 300_000);
  story.send({ type: "tick" }, 250_000);
  assert.deepEqual(story.of("cancelRun"), []);
  assert.equal(story.stage("a").sessions[0]?.status, "spawning");
  assert.notEqual(story.stage("a").sessions[0]?.runnerWaitNoticed, true);
  story.send({ type: "run.started", stageId: "a", attempt: 1, runId: 77 });
  assert.equal(nextWakeAt(story.state), story.at + 300_000);
  story.send({ type: "tick" }, 300_000);
  assert.equal(story.of("cancelRun").length, 1);
  assert.equal(story.stage("a").sessions[0]?.status, "hung");
});

test("a run no runner picks up says so on its check run, is cancelled and dispatched once more, then waits for a person", () => {
  const story = new Story(makePlan([["a", []]]), {
    settings: { runnerNoticeMs: 300_000, runnerTimeoutMs: 1_800_000, backoffBaseMs: 1_000 },
  });
  story.send({ type: "run.dispatched", stageId: "a", attempt: 1, runId: 77 });
  story.send({ type: "tick" }, 300_000);
  const first = story.stage("a").sessions[0]!;
  assert.equal(first.runnerWaitNoticed, true);
  assert.equal(first.status, "spawning", "still waiting: only the check run says so");
  assert.match(
    story.stage("a").notes.at(-1)?.text ?? "",
    /waiting for a runner: no runner has picked up run #77 for 5 min/,
  );
  assert.ok(
    story.of("syncCheckRun").some((e) => e.type === "syncCheckRun" && e.stageId === "a"),
    "the stage's check run is updated to say it waits for a runner",
  );
  assert.equal(nextWakeAt(story.state), first.dispatchedAt + 1_800_000, "next: the cancel time");

  story.send({ type: "tick" }, 1_500_000);
  assert.deepEqual(
    story.of("cancelRun").map((e) => e.type === "cancelRun" && e.runId),
    [77],
  );
  assert.equal(story.stage("a").sessions[0]?.status, "cancelled");
  assert.equal(story.stage("a").sessions[0]?.detail, "no runner picked up the run in 30 min");
  story.send({ type: "tick" }, 1_000);
  assert.deepEqual(story.dispatched(), ["a"], "dispatched once more");
  assert.equal(story.stage("a").sessions[1]?.kind, "stage", "a fresh session: the first never ran");

  story.send({ type: "run.dispatched", stageId: "a", attempt: 2, runId: 78 });
  story.send({ type: "tick" }, 1_800_000);
  assert.equal(story.stage("a").status, "blocked");
  assert.equal(story.stage("a").retryAt, null, "no third dispatch: a person decides");
  assert.match(
    story.stage("a").notes.at(-1)?.text ?? "",
    /no runner picked up attempts 1 and 2 \(30 min each\): check the runners .* then `\/loom retry a`/,
  );
});

test("a dispatch whose run was never found is still given up after the heartbeat timeout", () => {
  const story = new Story(makePlan([["a", []]]), { settings: { heartbeatTimeoutMs: 300_000 } });
  assert.equal(story.stage("a").sessions[0]?.runId, null);
  story.send({ type: "tick" }, 300_000);
  assert.equal(story.stage("a").sessions[0]?.status, "hung");
  assert.equal(story.stage("a").sessions[0]?.detail, "no heartbeat for 300 s");
  assert.deepEqual(story.of("cancelRun"), [], "no run to cancel");
  assert.equal(
    story.stage("a").retryAt,
    story.at + 30_000,
    "retried after the backoff alone, no cancel grace",
  );
});

test("a hung run's recovery waits for the cancelled run to upload its handoff, however short the backoff", () => {
  const story = new Story(makePlan([["a", []]]), {
    settings: { heartbeatTimeoutMs: 60_000, backoffBaseMs: 1_000 },
  });
  story.send({ type: "run.dispatched", stageId: "a", attempt: 1, runId: 77 });
  story.send({ type: "run.started", stageId: "a", attempt: 1, runId: 77 });
  story.send({ type: "tick" }, 60_000);
  assert.equal(story.of("cancelRun").length, 1);
  assert.equal(story.stage("a").retryAt, story.at + CANCEL_GRACE_MS);
  story.send({ type: "tick" }, CANCEL_GRACE_MS - 1);
  assert.deepEqual(story.dispatched(), [], "not yet: the cancelled run may still be uploading");
  story.send({ type: "tick" }, 1);
  assert.deepEqual(
    story.of("dispatchRun").map((d) => [d.stageId, d.kind, d.previousRunId]),
    [["a", "recovery", 77]],
  );
});

test("an untrusted plan waits for an approval of the current head; a new push needs a new one", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", ["a"]],
    ]),
    { trusted: false },
  );
  assert.deepEqual(story.dispatched(), []);
  story.command("approve", undefined, "0ld0000000000000000000000000000000000000");
  assert.equal(story.of("reply")[0]?.reaction, "-1");
  assert.deepEqual(story.dispatched(), []);
  story.command("approve", undefined, story.state.pr.headSha);
  assert.deepEqual(story.dispatched(), ["a"]);
  const approved = story.state.pr.headSha;
  story.run("a", "completed");
  story.merge("a");
  story.send({ type: "head.moved", headSha: "merge000000000000000000000000000000000001", before: approved });
  assert.equal(
    story.state.approvedSha,
    "merge000000000000000000000000000000000001",
    "loom's own merge (the SHA its merge answered) keeps the approval",
  );
  story.send({
    type: "head.moved",
    headSha: "push0000000000000000000000000000000000002",
    before: "merge000000000000000000000000000000000001",
  });
  assert.equal(story.state.approvedSha, null);
  assert.deepEqual(
    story.of("syncCheckRun").map((e) => e.stageId),
    [null],
    "an unapproved head gets the plan's check run only (with the Approve button), not one per stage",
  );
  story.command("approve", undefined, story.state.pr.headSha);
  assert.deepEqual(
    story.of("syncCheckRun").map((e) => e.stageId),
    ["a", "b", null],
    "the approval writes every stage's check run on the approved head",
  );
});

test("a push is loom's own only by the merge SHA loom recorded, on top of the head loom knew", () => {
  const plan = makePlan([
    ["a", []],
    ["b", ["a"]],
  ]);
  const MERGE = "merge000000000000000000000000000000000001";
  // The merge's webhook arrives before the merge's answer: the approval comes back with the answer.
  const early = new Story(plan, { trusted: false });
  const approved = early.state.pr.headSha;
  early.command("approve", undefined, approved);
  early.run("a", "completed");
  early.send({ type: "head.moved", headSha: MERGE, before: approved });
  assert.equal(early.state.approvedSha, null, "not known as loom's yet");
  early.merge("a");
  assert.equal(early.state.approvedSha, MERGE);
  assert.deepEqual(early.dispatched(), ["b"]);
  // A push loom did not produce (whoever sent its webhook) and loom's merge on top of an
  // unapproved push both need a new approval.
  const other = new Story(plan, { trusted: false });
  other.command("approve", undefined, other.state.pr.headSha);
  other.run("a", "completed");
  other.merge("a");
  other.send({ type: "head.moved", headSha: MERGE, before: "someone0000000000000000000000000000000000" });
  assert.equal(other.state.approvedSha, null, "merged onto a push loom never saw");
  assert.deepEqual(other.dispatched(), []);
});

test("a head read back without its push's before is loom's own only once its webhook shows the approved head under it", () => {
  const plan = makePlan([
    ["a", []],
    ["b", ["a"]],
  ]);
  const MERGE = "merge000000000000000000000000000000000001";
  for (const [before, approvedAfter] of [
    ["approved", MERGE],
    ["someone0000000000000000000000000000000000", null],
  ] as const) {
    const story = new Story(plan, { trusted: false });
    const approved = story.state.pr.headSha;
    story.command("approve", undefined, approved);
    story.run("a", "completed");
    story.send({ type: "head.moved", headSha: MERGE, before: null });
    story.merge("a");
    assert.equal(story.state.approvedSha, null, "a read-back does not say what the merge was made on");
    story.send({ type: "head.moved", headSha: MERGE, before: before === "approved" ? approved : before });
    assert.equal(story.state.approvedSha, approvedAfter);
  }
});

test("an approval by comment pins the head pushed before the comment was written; a SHA must be the head", () => {
  const story = new Story(makePlan([["a", []]]), { trusted: false });
  story.send({
    type: "head.moved",
    headSha: "b".repeat(40),
    before: story.state.pr.headSha,
    pushedAt: 2_000,
  });
  story.send({
    type: "command.received",
    command: "approve",
    sender: "alice",
    source: { kind: "comment", commentId: 1 },
    writtenAt: 2_000,
  });
  assert.equal(story.state.approvedSha, null, "written in the second of the push: not after it");
  assert.match(story.of("reply").at(-1)?.body ?? "", /after this comment was written/);
  story.send({
    type: "command.received",
    command: "approve",
    sender: "alice",
    source: { kind: "comment", commentId: 2 },
    sha: "a".repeat(7),
  });
  assert.equal(story.state.approvedSha, null);
  assert.match(story.of("reply").at(-1)?.body ?? "", /is not the head/);
  story.send({
    type: "command.received",
    command: "approve",
    sender: "alice",
    source: { kind: "comment", commentId: 3 },
    writtenAt: 3_000,
  });
  assert.equal(story.state.approvedSha, "b".repeat(40));
  assert.deepEqual(story.dispatched(), ["a"]);
});

test("commands on unknown stages, and help and status, get replies; running stages refuse retry", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", ["a"]],
    ]),
  );
  story.command("retry", "nope");
  const unknown = story.of("reply")[0]!;
  assert.equal(unknown.reaction, "-1");
  assert.match(unknown.body ?? "", /no stage `nope`/);
  assert.match(unknown.body ?? "", /`a`, `b`/);
  assert.equal(unknown.key, `${KEY}:@reply:comment-42:retry:nope`);
  story.command("retry", "a");
  assert.match(story.of("reply")[0]?.body ?? "", /is running/);
  story.command("skip");
  assert.match(story.of("reply")[0]?.body ?? "", /needs a stage id/);
  story.command("status");
  assert.match(story.of("reply")[0]?.body ?? "", /`a`: executing/);
  assert.equal(story.of("syncStatusComment").length, 1);
  story.command("help");
  assert.match(story.of("reply")[0]?.body ?? "", /\/loom retry/);
  story.command("cancel", "a");
  assert.equal(story.stage("a").status, "blocked");
  assert.equal(story.stage("a").blockedBy, "command");
  story.command("skip", "a");
  assert.equal(story.stage("a").status, "skipped");
  assert.equal(story.stage("a").skippedBy, "command");
  assert.deepEqual(story.dispatched(), ["b"]);
});

test("a changed plan adds new stages, drops unstarted removed ones, cancels a running removed one and keeps the history of started ones", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", ["a"]],
      ["c", []],
    ]),
    { settings: { maxParallel: 1 } },
  );
  assert.deepEqual(story.dispatched(), ["a"]);
  story.send({
    type: "plan.changed",
    plan: makePlan(
      [
        ["b", []],
        ["d", []],
      ],
      "c0ffee0000000000000000000000000000000000",
    ),
  });
  assert.equal(story.stage("a").removed, true);
  // The plan no longer asks for a's work: its running session is cancelled, its slot freed.
  assert.equal(story.stage("a").status, "blocked");
  assert.equal(story.stage("a").sessions[0]?.status, "cancelled");
  assert.equal(story.state.stages["c"], undefined);
  assert.deepEqual(story.state.order, ["b", "d", "a"]);
  assert.deepEqual(story.dispatched(), ["b"]);
  assert.equal(
    story.of("dispatchRun")[0]?.key,
    "c0ffee000000-pr7-PLAN-demo:b:1:dispatch",
    "keys follow the new plan blob",
  );
});

test("closing the pull request cancels running runs and ignores later events", () => {
  const story = new Story(makePlan([["a", []]]));
  story.send({ type: "run.dispatched", stageId: "a", attempt: 1, runId: 9 });
  story.send({ type: "plan.closed", merged: false });
  assert.deepEqual(
    story.of("cancelRun").map((e) => e.runId),
    [9],
  );
  assert.equal(story.state.closed, true);
  story.send({ type: "tick" }, 1_000_000);
  assert.deepEqual(story.dispatched(), []);
  assert.equal(nextWakeAt(story.state), null);
});

test("out-of-place events are recorded in rejected, never thrown, and change nothing", () => {
  const story = new Story(makePlan([["a", []]]));
  const before = story.stage("a");
  story.merge("a");
  story.send({ type: "run.finished", stageId: "a", attempt: 9, runId: 1, outcome: "completed", detail: "" });
  story.send({ type: "run.started", stageId: "ghost", attempt: 1, runId: 1 });
  assert.deepEqual(story.stage("a").status, before.status);
  assert.equal(story.stage("a").merged, false);
  assert.equal(story.state.rejected.length, 3);
});

test("step never changes the state it is given", () => {
  const story = new Story(diamond);
  const frozen = structuredClone(story.state);
  deepFreeze(story.state);
  const result = step(story.state, {
    type: "run.finished",
    at: story.at + 1,
    stageId: "a",
    attempt: 1,
    runId: 5,
    outcome: "completed",
    detail: "",
  });
  assert.deepEqual(story.state, frozen);
  assert.equal(result.state.stages["a"]?.status, "completed");
});

function deepFreeze(value: unknown): void {
  if (typeof value !== "object" || value === null) return;
  Object.freeze(value);
  for (const inner of Object.values(value)) deepFreeze(inner);
}

test("without live heartbeats (GHES), a running run is never cancelled as hung; a dispatch whose run never shows up still is", () => {
  const story = new Story(makePlan([["a", []]]), {
    settings: { heartbeatTimeoutMs: 300_000, liveHeartbeats: false },
  });
  story.send({ type: "run.dispatched", stageId: "a", attempt: 1, runId: 77 });
  story.send({ type: "run.started", stageId: "a", attempt: 1, runId: 77 });
  assert.equal(nextWakeAt(story.state), null, "nothing to wake for: the run's artifacts show when it ends");
  story.send({ type: "tick" }, 6 * 3_600_000);
  assert.deepEqual(story.of("cancelRun"), []);
  assert.equal(story.stage("a").sessions[0]?.status, "running");
  story.send({ type: "run.finished", stageId: "a", attempt: 1, runId: 77, outcome: "completed", detail: "" });
  assert.equal(story.stage("a").status, "completed");

  const lost = new Story(makePlan([["a", []]]), {
    settings: { heartbeatTimeoutMs: 300_000, liveHeartbeats: false },
  });
  lost.send({ type: "tick" }, 300_000);
  assert.equal(lost.stage("a").sessions[0]?.status, "hung", "no run was ever found for the dispatch");
});

test("re-running the check suite retries every failed stage, leaves those a person stopped, and says when there is nothing", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", []],
      ["c", []],
    ]),
  );
  const rerun = (checkSuiteId: number) =>
    story.send({
      type: "command.received",
      command: "retry",
      sender: "alice",
      source: { kind: "check-suite-rerequest", checkSuiteId },
    });
  story.run("a", "completed-with-failures", "acceptance failed");
  story.command("cancel", "b");
  story.pass("c");
  rerun(9);
  assert.deepEqual(story.dispatched(), ["a"], "the failed stage runs again, attempt 2");
  assert.equal(story.attemptOf("a"), 2);
  assert.equal(story.stage("b").status, "blocked", "a cancelled stage stays cancelled");
  assert.deepEqual(
    story.of("reply").map((r) => [r.reaction, r.body]),
    [["+1", null]],
  );
  story.run("a", "completed-with-failures", "acceptance failed again");
  story.command("skip", "a");
  rerun(10);
  const [nothing] = story.of("reply");
  assert.equal(nothing?.reaction, "-1");
  assert.match(
    nothing?.body ?? "",
    /Nothing of PLAN-demo to re-run: no stage has failed\. Stopped by a person: `b`/,
  );
  assert.equal(nothing?.key, `${KEY}:@reply:check-suite-rerequest-10:retry:`);
  assert.deepEqual(story.dispatched(), []);
});
