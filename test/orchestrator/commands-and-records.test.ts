import { test } from "node:test";
import assert from "node:assert/strict";
import { isSessionCheckDue } from "../../src/orchestrator/is-session-check-due.ts";
import { nextWakeAt } from "../../src/orchestrator/step.ts";
import { KEY, Story, makePlan } from "./story.ts";

const pair = makePlan([
  ["a", []],
  ["b", ["a"]],
]);

function rerun(story: Story) {
  return story.send({
    type: "command.received",
    command: "retry",
    sender: "octocat",
    source: { kind: "check-suite-rerequest", checkSuiteId: 3 },
  });
}

test("/loom approve on a trusted plan is simply acknowledged", () => {
  const story = new Story(pair);
  story.command("approve", undefined, "0".repeat(40));
  assert.deepEqual(
    story.of("reply").map((r) => [r.reaction, r.body]),
    [["+1", null]],
  );
  assert.equal(story.state.approvedSha, null);
});

test("an approval by a SHA prefix in any case names who approved which head; a second approval of an approved head is acknowledged", () => {
  const story = new Story(pair, { trusted: false });
  const head = "abcdef0123456789abcdef0123456789abcdef01";
  story.send({ type: "head.moved", headSha: head, before: story.state.pr.headSha });
  story.command("approve", undefined, "ABCDEF0");
  assert.deepEqual(
    story.of("reply").map((r) => [r.reaction, r.body]),
    [["+1", `Head ${head.slice(0, 7)} approved by @octocat: stages may run.`]],
  );
  assert.equal(story.state.approvedSha, head);
  story.command("approve", undefined, "0".repeat(40));
  assert.deepEqual(
    story.of("reply").map((r) => [r.reaction, r.body]),
    [["+1", null]],
    "already approved: nothing to refuse",
  );
});

test("the Approve button on an old head's check run says the head moved", () => {
  const story = new Story(pair, { trusted: false });
  const old = story.state.pr.headSha;
  story.send({ type: "head.moved", headSha: "e".repeat(40), before: old });
  story.send({
    type: "command.received",
    command: "approve",
    sender: "octocat",
    source: { kind: "check-run-button", checkRunId: 12 },
    sha: old,
  });
  const [reply] = story.of("reply");
  assert.equal(reply?.key, `${KEY}:@reply:check-run-button-12:approve:`);
  assert.equal(reply?.reaction, "-1");
  assert.equal(
    reply?.body,
    `The head moved to eeeeeee since ${old.slice(0, 7)}: review it and approve again.`,
  );
  assert.equal(story.state.approvedSha, null);
});

test("a short or non-hex SHA does not approve the head it prefixes", () => {
  const story = new Story(pair, { trusted: false });
  const head = story.state.pr.headSha;
  story.command("approve", undefined, head.slice(0, 6));
  assert.equal(story.state.approvedSha, null);
  story.command("approve", undefined, "head");
  assert.equal(story.state.approvedSha, null);
  assert.match(story.of("reply")[0]?.body ?? "", /^`head` is not the head of this pull request \(head000\)/);
});

test("/loom status lists every stage with its state and names stages removed from the plan", () => {
  const story = new Story(pair);
  story.run("a", "crashed");
  story.send({ type: "plan.changed", plan: makePlan([["b", []]]) });
  story.command("status");
  const body = story.of("reply")[0]?.body ?? "";
  assert.match(body, /^\*\*Demo\*\* \(`PLAN-demo`\)\n/);
  assert.match(body, /- `a`: blocked, retry at [^\n]*\(removed from the plan\), attempt 1/);
  assert.doesNotMatch(body, /- `b`[^\n]*removed/);
});

test("re-running the check suite leaves a failed stage that was removed from the plan, and says there is nothing", () => {
  const story = new Story(pair);
  story.run("a", "completed-with-failures", "acceptance failed");
  story.send({ type: "plan.changed", plan: makePlan([["b", []]]) });
  rerun(story);
  assert.deepEqual(
    story.of("reply").map((r) => [r.reaction, r.body]),
    [["-1", "Nothing of PLAN-demo to re-run: no stage has failed."]],
  );
  assert.equal(story.stage("a").status, "completed-with-failures");
});

test("labels someone not allowed to steer loom set are remembered as ignored", () => {
  const story = new Story(pair);
  story.send({ type: "labels.changed", labels: [], ignored: ["loom:skip:a"] });
  assert.deepEqual(story.state.ignoredLabels, ["loom:skip:a"]);
  assert.equal(story.stage("a").status, "executing");
  story.send({ type: "labels.changed", labels: [] });
  assert.deepEqual(story.state.ignoredLabels, ["loom:skip:a"], "an event without the field keeps the record");
});

test("a plan file rename on a head that has moved on since does not move the head back", () => {
  const story = new Story(makePlan([["a", []]]), { settings: { renamePlans: true } });
  const parent = story.state.pr.headSha;
  story.send({ type: "head.moved", headSha: "f".repeat(40), before: parent });
  story.send({
    type: "planFile.renamed",
    path: "doc/plans/IN_PROGRESS-PLAN-demo.md",
    sha: "9".repeat(40),
    parent,
  });
  assert.equal(story.state.pr.headSha, "f".repeat(40));
  assert.equal(story.state.planFile, "doc/plans/IN_PROGRESS-PLAN-demo.md");
  assert.deepEqual(story.of("syncCheckRun"), [], "nothing to re-create on a head that did not move");
});

test("a target sync answer for a plan that is not from a fork is recorded and ignored", () => {
  const story = new Story(pair);
  story.send({ type: "target.synced", sha: story.state.pr.headSha, outcome: "synced", detail: "" });
  assert.deepEqual(
    story.state.rejected.map((r) => r.reason),
    ["target.synced for a plan that does not come from a fork"],
  );
  assert.equal(story.state.fork, undefined);
});

test("the app is woken at the earliest time any stage waits for, whatever the plan order", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", []],
    ]),
  );
  story.send({ type: "run.dispatched", stageId: "a", attempt: 1, runId: 1 });
  story.send({ type: "run.started", stageId: "a", attempt: 1, runId: 1 });
  const aDeadline = story.at + story.state.settings.heartbeatTimeoutMs;
  story.run("b", "crashed");
  const bRetry = story.stage("b").retryAt ?? 0;
  assert.ok(bRetry < aDeadline);
  assert.equal(nextWakeAt(story.state), bRetry);
  story.send({ type: "tick" }, bRetry - story.at);
  story.run("b", "completed");
  assert.equal(nextWakeAt(story.state), aDeadline);
});

test("a session's check is due from its heartbeat deadline or its runner-wait time, never for a waiting retry or a closed plan", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", []],
    ]),
  );
  story.run("b", "crashed");
  const retryAt = story.stage("b").retryAt ?? 0;
  story.send({ type: "run.dispatched", stageId: "a", attempt: 1, runId: 1 });
  story.send({ type: "run.started", stageId: "a", attempt: 1, runId: 1 });
  const deadline = story.at + story.state.settings.heartbeatTimeoutMs;
  assert.ok(retryAt < deadline);
  assert.equal(isSessionCheckDue(story.state, retryAt), false, "b's due retry is a plain tick");
  assert.equal(isSessionCheckDue(story.state, deadline - 1), false);
  assert.equal(isSessionCheckDue(story.state, deadline), true, "a's heartbeat deadline has come");
  story.send({ type: "plan.closed", merged: false });
  assert.equal(isSessionCheckDue(story.state, deadline), false, "a closed plan judges nothing");
});

test("a run still waiting for a runner is due a check at its notice time", () => {
  const story = new Story(makePlan([["a", []]]));
  story.send({ type: "run.dispatched", stageId: "a", attempt: 1, runId: 1 });
  const noticeAt = nextWakeAt(story.state) ?? 0;
  assert.equal(isSessionCheckDue(story.state, noticeAt - 1), false);
  assert.equal(isSessionCheckDue(story.state, noticeAt), true);
});

test("/loom help and /loom status are answered with a 👍; help lists only stages still in the plan; status refreshes the comment", () => {
  const story = new Story(pair);
  story.run("a", "crashed");
  story.send({ type: "plan.changed", plan: makePlan([["b", []]]) });
  story.command("help");
  const [help] = story.of("reply");
  assert.equal(help?.reaction, "+1");
  assert.match(help?.body ?? "", /\n- PLAN-demo: `b`$/);
  story.command("status");
  assert.equal(story.of("reply")[0]?.reaction, "+1");
  assert.deepEqual(story.of("syncStatusComment"), [
    { type: "syncStatusComment", key: `${KEY}:@plan:status-comment` },
  ]);
});

test("/loom retry names one stage: only that one runs again, and a comment without one is told it needs one", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", []],
    ]),
  );
  story.run("a", "completed-with-failures", "failed");
  story.run("b", "completed-with-failures", "failed");
  story.command("retry", "a");
  assert.deepEqual(story.dispatched(), ["a"]);
  story.command("retry");
  assert.equal(story.of("reply")[0]?.reaction, "-1");
  assert.match(story.of("reply")[0]?.body ?? "", /`retry` needs a stage id\./);
  assert.equal(story.stage("b").status, "completed-with-failures");
});

test("/loom unblock releases a stage blocked by a command, but not one a label blocks", () => {
  const story = new Story(pair);
  story.command("block", "b");
  story.command("unblock", "b");
  assert.equal(story.of("reply")[0]?.reaction, "+1");
  assert.equal(story.stage("b").status, "waiting-for-deps");
  story.send({ type: "labels.changed", labels: ["loom:block:b"] });
  story.command("unblock", "b");
  assert.deepEqual(
    story.of("reply").map((r) => [r.reaction, r.body]),
    [["-1", "loom could not unblock `b`: `b` is blocked by a label: remove the label to unblock it"]],
  );
  assert.equal(story.stage("b").status, "blocked");
});

test("re-running the check suite with nothing failed names every stage a person stopped, and no skipped one", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", []],
      ["c", []],
    ]),
  );
  story.command("block", "a");
  story.command("skip", "a");
  story.command("block", "b");
  story.command("cancel", "c");
  rerun(story);
  assert.equal(
    story.of("reply")[0]?.body,
    "Nothing of PLAN-demo to re-run: no stage has failed. Stopped by a person: `b`, `c`; `/loom retry <stage>` or that stage's own Re-run runs one again.",
  );
});

test("a SHA named in a comment that is not the head is quoted back, cut to 40 characters", () => {
  const story = new Story(pair, { trusted: false });
  story.command("approve", undefined, "1".repeat(50));
  assert.equal(
    story.of("reply")[0]?.body,
    `\`${"1".repeat(40)}\` is not the head of this pull request (head000): review head000 and approve it.`,
  );
});

test("/loom status gives one line per stage: merged, retry time and the session kind", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", []],
      ["c", ["a"]],
    ]),
  );
  story.pass("a");
  story.run("b", "crashed");
  const retryAt = story.stage("b").retryAt ?? 0;
  story.command("status");
  assert.equal(
    story.of("reply")[0]?.body,
    [
      "**Demo** (`PLAN-demo`)",
      "- `a`: completed, merged, attempt 1",
      `- \`b\`: blocked, retry at ${new Date(retryAt).toISOString()}, attempt 1`,
      "- `c`: executing, attempt 1",
    ].join("\n"),
  );
});

test("a plan stored before branches carried the pull request number keeps its old branch names", () => {
  const story = new Story(pair);
  delete story.state.branchPrefix;
  story.run("a", "completed");
  assert.deepEqual(
    story.of("mergeBranch").map((m) => m.head),
    ["loom/PLAN-demo/a"],
  );
});
