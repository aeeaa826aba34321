import { test } from "node:test";
import assert from "node:assert/strict";
import type { CommandSource } from "../../src/orchestrator/events.ts";
import { REFUSAL_REPLY_INTERVAL_MS } from "../../src/orchestrator/handle-refusal.ts";
import { KEY, Story, makePlan } from "./story.ts";

const plan = makePlan([["a", []]]);
const comment = (commentId: number): CommandSource => ({ kind: "comment", commentId });
const button: CommandSource = { kind: "check-run-button", checkRunId: 5 };

function refuse(story: Story, sender: string, source: CommandSource, advanceMs = 1000) {
  return story.send({ type: "command.refused", sender, source, reason: "you need write access" }, advanceMs);
}

test("a refused comment gets a 👎 and the reason once; more refusals within the hour get only the 👎, and an hour later the reason again", () => {
  const story = new Story(plan);
  assert.deepEqual(refuse(story, "mallory", comment(1)), [
    {
      type: "reply",
      key: `${KEY}:@refused:comment-1:mallory`,
      source: comment(1),
      reaction: "-1",
      body: "loom did nothing: you need write access.",
    },
  ]);
  assert.deepEqual(refuse(story, "mallory", comment(2), REFUSAL_REPLY_INTERVAL_MS - 2000), [
    {
      type: "reply",
      key: `${KEY}:@refused:comment-2:mallory`,
      source: comment(2),
      reaction: "-1",
      body: null,
    },
  ]);
  const after = refuse(story, "mallory", comment(3), 2000);
  assert.equal(after[0]?.type === "reply" && after[0].body, "loom did nothing: you need write access.");
  assert.equal(story.stage("a").status, "executing", "a refusal changes nothing about the stages");
});

test("one person's refusals do not silence loom's answer to another", () => {
  const story = new Story(plan);
  refuse(story, "mallory", comment(1));
  const other = refuse(story, "eve", comment(2));
  assert.equal(other[0]?.type === "reply" && other[0].body, "loom did nothing: you need write access.");
});

test("a refused button press is answered once an hour, each press keyed by its time; silenced presses leave no trace", () => {
  const story = new Story(plan);
  const first = refuse(story, "mallory", button);
  assert.deepEqual(first, [
    {
      type: "reply",
      key: `${KEY}:@refused:check-run-button-5-${story.at}:mallory`,
      source: button,
      reaction: "-1",
      body: "loom did nothing: you need write access.",
    },
  ]);
  assert.deepEqual(refuse(story, "mallory", button), []);
  assert.deepEqual(refuse(story, "mallory", { kind: "check-suite-rerequest", checkSuiteId: 9 }), []);
  const later = refuse(
    story,
    "mallory",
    { kind: "check-suite-rerequest", checkSuiteId: 9 },
    REFUSAL_REPLY_INTERVAL_MS,
  );
  assert.equal(later[0]?.key, `${KEY}:@refused:check-suite-rerequest-9-${story.at}:mallory`);
});

test("the record of whom loom answered keeps only the last hour", () => {
  const story = new Story(plan);
  refuse(story, "mallory", comment(1));
  refuse(story, "eve", comment(2), REFUSAL_REPLY_INTERVAL_MS - 1000);
  refuse(story, "trent", comment(3), 1000);
  assert.deepEqual(Object.keys(story.state.refusalRepliedAt ?? {}).sort(), ["eve", "trent"]);
});

test("refusals on a closed pull request are still answered", () => {
  const story = new Story(plan);
  story.send({ type: "plan.closed", merged: false });
  const effects = refuse(story, "mallory", comment(1));
  assert.equal(effects[0]?.type === "reply" && effects[0].body, "loom did nothing: you need write access.");
});
