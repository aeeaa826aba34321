import { test } from "node:test";
import assert from "node:assert/strict";
import type { Effect } from "../../src/orchestrator/effects.ts";
import {
  DISPLAY_LANE,
  OVERVIEW_LANE,
  PROGRESS_LANE,
  effectLane,
} from "../../src/orchestrator/effect-lane.ts";
import { Story, makePlan } from "./story.ts";

test("effects that move a plan forward go ahead of those that only show it", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", ["a"]],
    ]),
    { settings: { deleteBranches: true, renamePlans: true } },
  );
  const seen: Effect[] = [...story.effects];
  seen.push(...story.send({ type: "run.dispatched", stageId: "a", attempt: 1, runId: 1 }));
  seen.push(...story.command("status"));
  seen.push(...story.command("cancel", "a"));
  seen.push(...story.command("retry", "a"));
  seen.push(...story.run("a", "completed"));
  seen.push(...story.merge("a"));
  seen.push(...story.pass("b"));
  const name = (effect: Effect): string =>
    effect.type === "syncCheckRun"
      ? `syncCheckRun(${effect.stageId === null ? "plan" : "stage"})`
      : effect.type;
  const lanes = new Map(seen.map((effect) => [name(effect), effectLane(effect)]));
  assert.deepEqual(Object.fromEntries([...lanes].sort(([a], [b]) => a.localeCompare(b))), {
    cancelRun: PROGRESS_LANE,
    createBranch: PROGRESS_LANE,
    deleteBranch: PROGRESS_LANE,
    dispatchRun: PROGRESS_LANE,
    ensureLabel: DISPLAY_LANE,
    mergeBranch: PROGRESS_LANE,
    renamePlanFile: PROGRESS_LANE,
    reply: DISPLAY_LANE,
    setTimer: PROGRESS_LANE,
    "syncCheckRun(plan)": OVERVIEW_LANE,
    "syncCheckRun(stage)": DISPLAY_LANE,
    syncStatusComment: OVERVIEW_LANE,
  });
  assert.ok(PROGRESS_LANE < DISPLAY_LANE, "the progress lane is claimed first");
  assert.ok(DISPLAY_LANE < OVERVIEW_LANE, "stage check runs before the overview that links them");
});
