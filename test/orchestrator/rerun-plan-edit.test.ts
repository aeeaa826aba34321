import { test } from "node:test";
import assert from "node:assert/strict";
import type { PlanSpec } from "../../src/orchestrator/events.ts";
import { finishDiamond, makeDiamond, passWith } from "./diamond.ts";
import type { Story } from "./story.ts";

/** The diamond with every stage's definition digest `v1`, except those in `changed` (`v2`). */
function withDefinitions(
  changed: string[] = [],
  plan: PlanSpec = makeDiamond(),
  blobSha = "e".repeat(40),
): PlanSpec {
  return {
    ...plan,
    blobSha,
    stages: plan.stages.map((spec) => ({ ...spec, definition: changed.includes(spec.id) ? "v2" : "v1" })),
  };
}

function edit(story: Story, plan: PlanSpec) {
  return story.send({ type: "plan.changed", plan });
}

function finished(): Story {
  const story = finishDiamond();
  edit(story, withDefinitions([], makeDiamond(), "d".repeat(40)));
  assert.equal(story.state.affected ?? null, null, "the first digests seen change nothing");
  return story;
}

test("a plan edit that changes c's definition (its acceptance) affects c and d only; /loom rerun affected re-runs them", () => {
  const story = finished();
  edit(story, withDefinitions(["c"]));
  assert.deepEqual(story.state.affected, {
    cause: "the plan edit",
    at: story.at,
    stages: [
      { id: "c", why: "its definition changed in the plan file" },
      { id: "d", why: "downstream of `c`" },
    ],
  });
  assert.deepEqual(story.dispatched(), []);
  story.send({
    type: "command.received",
    command: "rerun",
    sender: "octocat",
    source: { kind: "comment", commentId: 3 },
  });
  assert.deepEqual(story.dispatched(), ["c"]);
  passWith(story, "c", ["src/c.ts"]);
  assert.deepEqual(story.dispatched(), ["d"]);
  passWith(story, "d", []);
  for (const id of ["a", "b"]) assert.equal(story.stage(id).sessions.length, 1, `${id} never re-ran`);
});

test("a plan edit that only adds a stage runs the new stage and re-runs nothing", () => {
  const story = finished();
  const plan = withDefinitions();
  edit(story, {
    ...plan,
    stages: [
      ...plan.stages,
      { id: "e", name: "Stage e", dependencies: ["d"], stageType: "standard", definition: "v1" },
    ],
  });
  assert.equal(story.state.affected ?? null, null);
  assert.deepEqual(story.dispatched(), ["e"]);
});

test("a stage removed from the plan while it runs is cancelled, and never dispatched again", () => {
  const story = finishDiamond();
  story.send({
    type: "command.received",
    command: "retry",
    stageId: "d",
    sender: "octocat",
    source: { kind: "comment", commentId: 4 },
  });
  story.send({ type: "run.dispatched", stageId: "d", attempt: 2, runId: 4242 });
  const plan = withDefinitions();
  edit(story, { ...plan, stages: plan.stages.filter((spec) => spec.id !== "d") });
  assert.deepEqual(
    story.of("cancelRun").map((e) => [e.stageId, e.runId]),
    [["d", 4242]],
  );
  assert.equal(story.stage("d").removed, true);
  assert.equal(story.stage("d").status, "blocked");
  story.send({ type: "tick" }, 600_000);
  assert.deepEqual(story.dispatched(), []);
});
