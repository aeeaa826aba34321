import { test } from "node:test";
import assert from "node:assert/strict";
import { renderStageCheckRun } from "../../src/status/render-stage-check-run.ts";
import { costReport } from "./cost-report.ts";
import { Story, makePlan } from "./story.ts";

const pair = makePlan([
  ["a", []],
  ["b", ["a"]],
]);

const INSTRUCTIONS = "also handle the empty case";

/** `/loom continue <stage> <instructions>` from octocat's comment. */
function continueStage(story: Story, stageId: string, instructions: string | null = INSTRUCTIONS) {
  return story.send({
    type: "command.received",
    command: "continue",
    stageId,
    ...(instructions === null ? {} : { instructions }),
    sender: "octocat",
    source: { kind: "comment", commentId: 77 },
  });
}

test("/loom continue on a merged stage re-opens it: a continue attempt resumes its last run with the instructions, merges by SHA, and a dependent that has not started waits for that merge", () => {
  const story = new Story(pair);
  story.command("block", "b");
  story.pass("a");
  const firstRun = story.stage("a").sessions[0]?.runId;
  assert.equal(story.stage("a").merged, true);

  continueStage(story, "a");
  assert.equal(story.of("reply")[0]?.reaction, "+1");
  const [dispatch] = story.of("dispatchRun");
  assert.deepEqual(
    { kind: dispatch?.kind, attempt: dispatch?.attempt, previous: dispatch?.previousRunId },
    { kind: "continue", attempt: 2, previous: firstRun },
  );
  assert.deepEqual(dispatch?.continuation, { instructions: INSTRUCTIONS, by: "octocat", fromAttempt: 1 });
  assert.equal(story.stage("a").merged, false, "the re-opened stage no longer counts as merged");
  assert.match(
    story
      .stage("a")
      .notes.map((n) => n.text)
      .join("\n"),
    /continued by @octocat from attempt 1: "also handle the empty case"; its dependents that have not started wait until it is merged again/,
  );

  // b is released while a's continue runs: it waits for a to be merged again.
  story.command("unblock", "b");
  assert.equal(story.stage("b").status, "waiting-for-deps");
  assert.deepEqual(story.dispatched(), []);

  const checked = "c0ffee0000000000000000000000000000000002";
  story.send({ type: "run.dispatched", stageId: "a", attempt: 2, runId: 2001 });
  story.send({
    type: "run.finished",
    stageId: "a",
    attempt: 2,
    runId: 2001,
    outcome: "completed",
    detail: "",
    headSha: checked,
  });
  const [merge] = story.of("mergeBranch");
  assert.equal(merge?.stageId, "a");
  assert.equal(merge?.sha, checked, "merged by the SHA its checks ran on");
  assert.equal(story.stage("a").continuation, undefined, "the instructions are carried out");
  story.merge("a");
  assert.deepEqual(story.dispatched(), ["b"]);
  assert.equal(story.of("dispatchRun")[0]?.kind, "stage");
});

test("/loom continue on a running dependent's dependency leaves the dependent running", () => {
  const story = new Story(pair);
  story.pass("a");
  assert.equal(story.stage("b").status, "executing");
  continueStage(story, "a");
  assert.equal(story.stage("b").status, "executing");
  assert.equal(story.of("cancelRun").length, 0);
  assert.deepEqual(story.dispatched(), ["a"]);
});

test("a continue attempt that crashes is retried as a continue of the same run with the same instructions; one that runs out of context continues from its handoff", () => {
  const story = new Story(pair);
  story.pass("a");
  const source = story.stage("a").sessions[0]?.runId;
  continueStage(story, "a");
  story.run("a", "crashed", "runner lost");
  story.send({ type: "tick" }, 600_000);
  const [retry] = story.of("dispatchRun");
  assert.deepEqual(
    { kind: retry?.kind, previous: retry?.previousRunId, instructions: retry?.continuation?.instructions },
    { kind: "continue", previous: source, instructions: INSTRUCTIONS },
  );
  story.run("a", "needs-handoff");
  const [handedOff] = story.of("dispatchRun");
  const handoffRun = story.stage("a").sessions.at(-2)?.runId;
  assert.deepEqual(
    { kind: handedOff?.kind, previous: handedOff?.previousRunId },
    { kind: "continue", previous: handoffRun },
  );
});

test("after a continue attempt ran its checks, a retry is a plain stage session again", () => {
  const story = new Story(pair);
  story.run("a", "completed-with-failures", "1 of 1 check failed");
  continueStage(story, "a");
  assert.equal(story.of("dispatchRun")[0]?.kind, "continue");
  story.run("a", "completed-with-failures", "1 of 1 check failed");
  assert.equal(story.stage("a").continuation, undefined);
  story.command("retry", "a");
  assert.equal(story.of("dispatchRun")[0]?.kind, "stage");
});

test("the instructions are redacted before anything keeps them: a pasted token reaches no effect", () => {
  const story = new Story(pair);
  story.pass("a");
  const token = `ghp_${"A1b2C3d4E5".repeat(4).slice(0, 36)}`;
  const effects = continueStage(story, "a", `use ${token} to fetch the fixtures`);
  assert.ok(!JSON.stringify(effects).includes(token));
  assert.ok(!JSON.stringify(story.state).includes(token));
  assert.match(story.of("dispatchRun")[0]?.continuation?.instructions ?? "", /use \[REDACTED\] to fetch/);
});

const REFUSALS: [string, (story: Story) => void, string, string][] = [
  [
    "a running stage",
    () => undefined,
    "a",
    "`a` has a session running: `/loom cancel a` first, then continue it",
  ],
  [
    "a stage that has not run",
    () => undefined,
    "b",
    "`b` is waiting to run (waiting-for-deps): continue it once it has run",
  ],
  [
    "a stage being merged",
    (s) => s.run("a", "completed"),
    "a",
    "`a` is being merged: continue it once it is merged",
  ],
  [
    "a skipped stage",
    (s) => s.command("skip", "b"),
    "b",
    "`b` is skipped: nothing of it is left to continue",
  ],
  [
    "a stage a label blocks",
    (s) => {
      s.run("a", "completed-with-failures");
      s.send({ type: "labels.changed", labels: ["loom:block:a"] });
    },
    "a",
    "`a` is blocked by a label: remove the label first",
  ],
];

for (const [what, setUp, stageId, reason] of REFUSALS) {
  test(`/loom continue refused: ${what}, with the reason and nothing dispatched`, () => {
    const story = new Story(pair);
    setUp(story);
    continueStage(story, stageId);
    const [reply] = story.of("reply");
    assert.equal(reply?.reaction, "-1");
    assert.equal(reply?.body, `loom could not continue \`${stageId}\`: ${reason}`);
    assert.deepEqual(story.dispatched(), []);
    assert.equal(story.stage(stageId).continuation, undefined);
  });
}

test("/loom continue without instructions is refused", () => {
  const story = new Story(pair);
  story.pass("a");
  continueStage(story, "a", null);
  assert.equal(
    story.of("reply")[0]?.body,
    "loom could not continue `a`: `continue` needs instructions for the session",
  );
  assert.equal(story.stage("a").merged, true);
});

test("the stage's check run shows who continued it and their instructions, quoted, then whether the session was resumed", () => {
  const story = new Story(pair);
  story.pass("a");
  continueStage(story, "a", "also handle the empty case\n<b>and</b> ping @someone");
  const waiting = renderStageCheckRun(story.state, "a").summary;
  assert.match(waiting, /### Continued by @&#8203;octocat \(attempt 2, from attempt 1\)/);
  assert.match(waiting, /> also handle the empty case\n> &lt;b&gt;and&lt;\/b&gt; ping @&#8203;someone/);
  story.run("a", "completed", "", {
    ...costReport(0.1),
    continued: { mode: "handoff", fromRunId: 1001, reason: "run 1001 left no loom-session" },
  });
  const after = renderStageCheckRun(story.state, "a", { runUrl: (id) => `https://x/runs/${id}` }).summary;
  assert.match(
    after,
    /Not resumed: a fresh session got the earlier result and the instructions \(handoff prompt\), because run 1001 left no loom-session/,
  );
});

test("/loom continue is refused while the caller pins a release whose stage workflow cannot resume a session", () => {
  const caller = { kind: "older" as const, release: "0.3.0", note: "Move the pin to loom 0.4.0." };
  const story = new Story(pair, { settings: { caller } });
  story.pass("a");
  continueStage(story, "a");
  assert.equal(
    story.of("reply")[0]?.body,
    "loom could not continue `a`: the caller workflow pins loom 0.3.0, whose stage workflow cannot resume a session: move its pin to the newest release (the plan's check run shows the lines to paste)",
  );
  assert.equal(story.stage("a").merged, true);
  assert.deepEqual(story.dispatched(), []);
});
