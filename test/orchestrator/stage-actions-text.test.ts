import { test } from "node:test";
import assert from "node:assert/strict";
import type { Effect } from "../../src/orchestrator/effects.ts";
import { Story, makePlan } from "./story.ts";

const single = makePlan([["a", []]]);
const pair = makePlan([
  ["a", []],
  ["b", ["a"]],
]);

/** The body of the latest step's reply, and whether it was a 👍. */
function replyOf(effects: Effect[]): { ok: boolean; body: string | null } {
  const reply = effects.find((effect) => effect.type === "reply");
  assert.ok(reply?.type === "reply", "the command got a reply");
  return { ok: reply.reaction === "+1", body: reply.body };
}

const noteTexts = (story: Story, id: string) => story.stage(id).notes.map((note) => note.text);

test("unblocking a stage whose dependencies are merged puts it straight back in the queue and runs it, noting who", () => {
  const story = new Story(pair);
  story.pass("a");
  story.command("block", "b");
  const before = noteTexts(story, "b").length;
  assert.deepEqual(replyOf(story.command("unblock", "b")), { ok: true, body: null });
  assert.deepEqual(noteTexts(story, "b").slice(before), [
    "unblocked by @octocat",
    "attempt 2: stage session dispatched",
  ]);
  assert.equal(story.stage("b").status, "executing");
});

test("/loom retry on a running stage is refused with the cancel command to use", () => {
  const story = new Story(single);
  assert.equal(story.stage("a").status, "executing");
  assert.deepEqual(replyOf(story.command("retry", "a")), {
    ok: false,
    body: "loom could not retry `a`: `a` is running: `/loom cancel a` first",
  });
});

test("/loom retry on a merge conflict waiting for its retry notes who asked and retries now", () => {
  const story = new Story(single, { settings: { maxAttempts: 5 } });
  story.run("a", "completed");
  story.merge("a", "conflict");
  story.run("a", "timed-out", "job timeout");
  assert.equal(story.stage("a").status, "merge-conflict");
  assert.notEqual(story.stage("a").retryAt, null);
  assert.deepEqual(replyOf(story.command("retry", "a")), { ok: true, body: null });
  assert.ok(noteTexts(story, "a").includes("retry requested by @octocat"));
  assert.deepEqual(
    story.of("dispatchRun").map((run) => [run.kind, run.stageId]),
    [["merge", "a"]],
  );
});

test("re-running the pull request's checks merges a merge-blocked stage again", () => {
  const story = new Story(single, { settings: { maxAttempts: 5 } });
  story.run("a", "completed");
  story.merge("a", "conflict");
  story.run("a", "completed-with-failures", "could not resolve");
  assert.equal(story.stage("a").status, "merge-blocked");
  const effects = story.send({
    type: "command.received",
    command: "retry",
    sender: "octocat",
    source: { kind: "check-suite-rerequest", checkSuiteId: 3 },
  });
  assert.deepEqual(replyOf(effects), { ok: true, body: null });
  assert.ok(noteTexts(story, "a").includes("retry requested by @octocat"));
  assert.deepEqual(
    story.of("mergeBranch").map((merge) => merge.stageId),
    ["a"],
  );
});

test("/loom cancel on a running stage cancels its run and blocks it with how to run it again", () => {
  const story = new Story(single);
  const attempt = story.attemptOf("a");
  story.send({ type: "run.dispatched", stageId: "a", attempt, runId: 77 });
  const effects = story.command("cancel", "a");
  assert.deepEqual(replyOf(effects), { ok: true, body: null });
  assert.deepEqual(
    story.of("cancelRun").map((cancel) => cancel.runId),
    [77],
  );
  assert.equal(story.stage("a").status, "blocked");
  assert.equal(story.stage("a").blockedBy, "command");
  assert.equal(noteTexts(story, "a").at(-1), "cancelled by @octocat; `/loom retry a` to run again");
});

test("/loom cancel on a stage with nothing running is refused and says so", () => {
  const story = new Story(pair);
  assert.deepEqual(replyOf(story.command("cancel", "b")), {
    ok: false,
    body: "loom could not cancel `b`: `b` has no running session",
  });
  assert.equal(story.stage("b").status, "waiting-for-deps");
});
