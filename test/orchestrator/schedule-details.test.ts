import { test } from "node:test";
import assert from "node:assert/strict";
import { KEY, Story, makePlan } from "./story.ts";

test("each dispatch sets a timer for its heartbeat deadline", () => {
  const story = new Story(makePlan([["a", []]]), { settings: { heartbeatTimeoutMs: 120_000 } });
  const deadline = story.at + 120_000;
  assert.deepEqual(story.of("setTimer"), [
    { type: "setTimer", key: `${KEY}:a:1:watch:${deadline}`, at: deadline },
  ]);
  assert.equal(story.stage("a").notes.at(-1)?.text, "attempt 1: stage session dispatched");
});

test("a stage whose dependencies merged is queued with a note saying so", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", ["a"]],
    ]),
    { settings: { maxParallel: 1 } },
  );
  story.pass("a");
  assert.ok(
    story.stage("b").notes.some((n) => n.text === "queued: every dependency is completed and merged"),
    story
      .stage("b")
      .notes.map((n) => n.text)
      .join("\n"),
  );
});

test("a merge session takes one of the maxParallel slots", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", []],
      ["c", []],
    ]),
    { settings: { maxParallel: 2 } },
  );
  story.run("a", "completed");
  assert.deepEqual(story.dispatched(), ["c"]);
  story.merge("a", "conflict");
  assert.deepEqual(story.dispatched(), [], "b and c hold both slots");
  story.run("b", "completed");
  assert.deepEqual(
    story.of("dispatchRun").map((d) => [d.stageId, d.kind]),
    [["a", "merge"]],
  );
});

test("a stage a person cancelled runs again as a fresh stage session, not a recovery", () => {
  const story = new Story(makePlan([["a", []]]));
  story.send({ type: "run.dispatched", stageId: "a", attempt: 1, runId: 3 });
  story.command("cancel", "a");
  story.command("retry", "a");
  assert.deepEqual(
    story.of("dispatchRun").map((d) => [d.kind, d.attempt, d.previousRunId]),
    [["stage", 2, 3]],
  );
});

test("a conflicted stage waiting out a merge session's backoff gets no new merge session before it is due", () => {
  const story = new Story(makePlan([["a", []]]), { settings: { maxAttempts: 5 } });
  story.run("a", "completed");
  story.merge("a", "conflict");
  story.run("a", "crashed");
  const retryAt = story.stage("a").retryAt ?? 0;
  story.send({ type: "tick" }, retryAt - story.at - 1);
  assert.deepEqual(story.dispatched(), []);
  story.send({ type: "tick" }, 1);
  assert.deepEqual(
    story.of("dispatchRun").map((d) => d.kind),
    ["merge"],
  );
});

test("/loom status says why nothing is dispatched: the hold label, or a head waiting for approval", () => {
  const held = new Story(makePlan([["a", []]]), { labels: ["loom:hold"] });
  held.command("status");
  assert.match(held.of("reply")[0]?.body ?? "", /\nNot dispatching: the pull request has the hold label\.\n/);
  const untrusted = new Story(makePlan([["a", []]]), { trusted: false });
  untrusted.command("status");
  assert.match(
    untrusted.of("reply")[0]?.body ?? "",
    /\nNot dispatching: waiting for someone with write access to approve head head000 \(`\/loom approve`\)\.\n/,
  );
  const running = new Story(makePlan([["a", []]]));
  running.command("status");
  assert.doesNotMatch(running.of("reply")[0]?.body ?? "", /Not dispatching/);
});
