import assert from "node:assert/strict";
import { test } from "node:test";
import { getAverageStageCost } from "../../src/orchestrator/forecast-spend.ts";
import { nextWakeAt } from "../../src/orchestrator/next-wake-at.ts";
import { costReport } from "./cost-report.ts";
import { Story, makePlan } from "./story.ts";
import { T0, makePlanState, makeSession } from "../status/make-plan-state.ts";

const done = { status: "completed" as const, merged: true };

test("the average stage cost leaves out a completed stage that never ran a session", () => {
  const state = makePlanState([
    { id: "a", ...done, sessions: [makeSession({ status: "completed", report: costReport(4) })] },
    { id: "b", ...done, sessions: [] },
  ]);
  assert.equal(getAverageStageCost(state), 4);
});

test("a closed plan never asks to be woken, even with a retry pending", () => {
  const state = makePlanState([{ id: "a", status: "blocked", retryAt: T0 + 400_000 }], { closed: true });
  assert.equal(nextWakeAt(state), null);
});

test("the plan wakes at the earliest of its stages' retries, whatever their order", () => {
  const state = makePlanState([
    { id: "a", status: "blocked", retryAt: T0 + 400_000 },
    { id: "b", status: "blocked", retryAt: T0 + 900_000 },
  ]);
  assert.equal(nextWakeAt(state), T0 + 400_000);
});

test("a due retry of a blocked stage puts it back in line, saying which retry is due", () => {
  const story = new Story(makePlan([["a", []]]));
  story.run("a", "crashed");
  assert.equal(story.stage("a").status, "blocked");
  story.send({ type: "tick" }, 31_000);
  assert.ok(story.stage("a").notes.some((note) => note.text === "retry 1 due"));
  assert.deepEqual(story.dispatched(), ["a"]);
});

test("a due retry of a failed merge session keeps the stage in merge-conflict and says the retry is due", () => {
  const story = new Story(makePlan([["a", []]]));
  story.run("a", "completed");
  story.merge("a", "conflict");
  story.run("a", "crashed");
  story.send({ type: "tick" }, 31_000);
  const a = story.stage("a");
  assert.equal(a.status, "merge-conflict");
  assert.ok(a.notes.some((note) => note.text === "retry 1 due"));
  assert.deepEqual(story.dispatched(), ["a"]);
});

test("a silent session is marked hung and its retry is noted with how long it was silent", () => {
  const story = new Story(makePlan([["a", []]]));
  const attempt = story.attemptOf("a");
  story.send({ type: "run.dispatched", stageId: "a", attempt, runId: 1001 });
  story.send({ type: "run.started", stageId: "a", attempt, runId: 1001 });
  story.send({ type: "tick" }, 300_000);
  const a = story.stage("a");
  const session = a.sessions.at(-1);
  assert.deepEqual(
    [session?.status, session?.outcome, session?.detail],
    ["hung", "hung", "no heartbeat for 300 s"],
  );
  assert.match(
    a.notes.at(-1)?.text ?? "",
    /^attempt 1 hung \(no heartbeat for 300 s\); retry 1 of 2 in 30 s$/,
  );
  assert.deepEqual(
    story.of("cancelRun").map((effect) => effect.runId),
    [1001],
  );
});

test("a dispatch whose run was never found is retried after the backoff alone: there is no run to wait for", () => {
  const story = new Story(makePlan([["a", []]]), { settings: { backoffBaseMs: 1000 } });
  story.send({ type: "tick" }, 300_000);
  const a = story.stage("a");
  assert.equal(a.sessions.at(-1)?.outcome, "hung");
  assert.equal(a.retryAt, story.at + 1000);
  assert.deepEqual(story.of("cancelRun"), []);
});
