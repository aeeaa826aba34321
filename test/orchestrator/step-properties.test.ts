import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { isDependencySatisfied } from "../../src/graph/ready-stages.ts";
import { isTerminalStage } from "../../src/stage/stage-transitions.ts";
import { isActiveSession } from "../../src/stage/session-transitions.ts";
import type { Effect } from "../../src/orchestrator/effects.ts";
import type { OrchestratorEvent } from "../../src/orchestrator/events.ts";
import type { PlanState } from "../../src/orchestrator/state.ts";
import { isMergedByPerson } from "../../src/orchestrator/merge-by-person.ts";
import { makePlan } from "./story.ts";
import { World } from "./world.ts";

/** A random DAG: stage i depends only on earlier stages. */
const randomPlan = fc
  .integer({ min: 1, max: 12 })
  .chain((size) =>
    fc
      .array(fc.array(fc.nat({ max: 100 }), { maxLength: 3 }), { minLength: size, maxLength: size })
      .map((picks) =>
        makePlan(
          picks.map((deps, i): [string, string[]] => [
            `s-${i}`,
            i === 0 ? [] : [...new Set(deps.map((d) => `s-${d % i}`))],
          ]),
        ),
      ),
  );

/** Statuses a stage only reaches by having been queued. */
const STARTED = [
  "queued",
  "executing",
  "needs-handoff",
  "completed",
  "completed-with-failures",
  "merge-conflict",
  "merge-blocked",
];

/**
 * A stage continued or re-run after it was merged (a person's continue or retry, a dependency's
 * re-run): its dependents may have started on its earlier result.
 */
function wasReopened(stage: PlanState["stages"][string]): boolean {
  return (
    stage.continuation !== undefined ||
    stage.rerun !== undefined ||
    stage.sessions.some((session) => session.kind === "continue" || session.rerunWhy !== undefined)
  );
}

function checkInvariants(
  before: PlanState,
  after: PlanState,
  effects: Effect[],
  event: OrchestratorEvent,
): void {
  const where = `after ${event.type} ${JSON.stringify(event).slice(0, 200)}`;
  for (const effect of effects) {
    if (effect.type !== "dispatchRun" || effect.kind === "merge") continue;
    for (const dep of after.stages[effect.stageId]!.dependencies) {
      assert.ok(
        isDependencySatisfied(after.stages[dep]),
        `${effect.stageId} dispatched before ${dep} was completed and merged, ${where}`,
      );
    }
  }
  for (const id of after.order) {
    const stage = after.stages[id]!;
    if (STARTED.includes(stage.status) || stage.sessions.length > 0) {
      for (const dep of stage.dependencies) {
        assert.ok(
          isDependencySatisfied(after.stages[dep]) || wasReopened(after.stages[dep]!),
          `${id} is ${stage.status} while ${dep} is not satisfied, ${where}`,
        );
      }
    }
    const old = before.stages[id];
    // Only a person's `/loom continue` or `/loom retry` of that very stage re-opens a completed,
    // merged one, or a dependency's re-run whose merge changed what it builds on.
    const reopens =
      (event.type === "command.received" &&
        (event.command === "continue" || event.command === "retry") &&
        event.stageId === id) ||
      (event.type === "merge.finished" && stage.rerun !== undefined && old?.rerun === undefined);
    if (old && isTerminalStage(old) && !reopens) {
      assert.equal(stage.status, old.status, `terminal ${id} moved, ${where}`);
      assert.equal(stage.merged, old.merged, `terminal ${id} lost its merge, ${where}`);
    }
  }
  const active = after.order.filter((id) => after.stages[id]!.sessions.some(isActiveSession)).length;
  assert.ok(
    active <= after.settings.maxParallel,
    `${active} sessions run with maxParallel ${after.settings.maxParallel}, ${where}`,
  );
}

test("against an unruly world, dependencies come first, parallelism stays bounded and final stages stay final", () => {
  fc.assert(
    fc.property(randomPlan, fc.integer({ min: 1, max: 4 }), fc.integer(), (plan, maxParallel, seed) => {
      const world = new World(plan, { seed, cooperative: false, maxParallel, onStep: checkInvariants });
      for (let i = 0; i < 250; i++) world.act();
    }),
    { numRuns: 100 },
  );
});

test("when the world cooperates every stage ends completed and merged", () => {
  fc.assert(
    fc.property(randomPlan, fc.integer({ min: 1, max: 4 }), fc.integer(), (plan, maxParallel, seed) => {
      const world = new World(plan, { seed, cooperative: true, maxParallel, onStep: checkInvariants });
      for (let i = 0; i < 2000 && !world.isQuiet(); i++) world.act();
      assert.ok(world.isQuiet(), "the world never went quiet");
      for (const id of world.state.order) {
        const stage = world.state.stages[id]!;
        assert.equal(stage.status, "completed", `${id}: ${stage.status}`);
        assert.equal(stage.merged, true, `${id} not merged`);
      }
      assert.deepEqual(world.state.rejected, []);
    }),
    { numRuns: 100 },
  );
});

test("against an unruly world, a stage a person merges (auto_merge: false) is never merged because its run passed", () => {
  const gatedPlan = fc
    .tuple(
      randomPlan,
      fc.option(fc.boolean(), { nil: undefined }),
      fc.array(fc.option(fc.boolean(), { nil: undefined }), { minLength: 12, maxLength: 12 }),
    )
    .map(([plan, planFlag, stageFlags]) => ({
      ...plan,
      ...(planFlag === undefined ? {} : { autoMerge: planFlag }),
      stages: plan.stages.map((stage, i) =>
        stageFlags[i] === undefined ? stage : { ...stage, autoMerge: stageFlags[i] },
      ),
    }));
  const onStep = (before: PlanState, after: PlanState, effects: Effect[], event: OrchestratorEvent) => {
    checkInvariants(before, after, effects, event);
    if (event.type !== "run.finished") return;
    for (const effect of effects) {
      if (effect.type !== "mergeBranch") continue;
      assert.ok(
        !isMergedByPerson(after.plan, effect.stageId),
        `${effect.stageId} merged by its run's end, ${JSON.stringify(event).slice(0, 200)}`,
      );
    }
  };
  fc.assert(
    fc.property(gatedPlan, fc.integer({ min: 1, max: 4 }), fc.integer(), (plan, maxParallel, seed) => {
      const world = new World(plan, { seed, cooperative: false, maxParallel, onStep });
      for (let i = 0; i < 250; i++) world.act();
    }),
    { numRuns: 30 },
  );
});
