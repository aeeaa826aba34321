import assert from "node:assert/strict";
import { test } from "node:test";
import { Story, makePlan } from "./story.ts";

test("with max_attempts 10 every wait before a retry stays at the backoff cap (300 s by default)", () => {
  const story = new Story(makePlan([["a", []]]), { settings: { maxAttempts: 10 } });
  const waits: number[] = [];
  for (let failure = 1; failure < 10; failure++) {
    story.run("a", "crashed");
    const retryAt = story.stage("a").retryAt;
    assert.ok(retryAt !== null, `failure ${failure} is retried`);
    waits.push((retryAt - story.at) / 1000);
    story.send({ type: "tick" }, retryAt - story.at);
  }
  assert.deepEqual(waits, [30, 60, 120, 240, 300, 300, 300, 300, 300]);
  story.run("a", "crashed");
  assert.deepEqual(
    [story.stage("a").status, story.stage("a").retryAt],
    ["blocked", null],
    "the 10th failure gives up",
  );
});
