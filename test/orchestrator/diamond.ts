import assert from "node:assert/strict";
import type { PlanSpec } from "../../src/orchestrator/events.ts";
import { Story, makePlan } from "./story.ts";

/** The diamond a → b, c → d, each stage with its own `files`. */
export function makeDiamond(): PlanSpec {
  const plan = makePlan([
    ["a", []],
    ["b", ["a"]],
    ["c", ["a"]],
    ["d", ["b", "c"]],
  ]);
  const files: Record<string, string[]> = {
    a: ["src/a/**"],
    b: ["src/b/"],
    c: ["src/c.ts"],
    d: ["src/d/**"],
  };
  return { ...plan, stages: plan.stages.map((spec) => ({ ...spec, files: files[spec.id] ?? [] })) };
}

/** Runs the stage to completion and merges it, the merge changing `paths`; returns the merge SHA. */
export function passWith(story: Story, id: string, paths: string[]): string {
  story.run(id, "completed");
  const sha = `${id}${String(story.at).padStart(39, "0")}`.slice(0, 40);
  story.send({
    type: "merge.finished",
    stageId: id,
    outcome: "merged",
    sha,
    changedPaths: paths,
    detail: "",
  });
  return sha;
}

/** The diamond run to the end, every stage merged. */
export function finishDiamond(options: ConstructorParameters<typeof Story>[1] = {}): Story {
  const story = new Story(makeDiamond(), options);
  passWith(story, "a", ["src/a/one.ts"]);
  passWith(story, "b", ["src/b/two.ts"]);
  passWith(story, "c", ["src/c.ts"]);
  passWith(story, "d", ["src/d/four.ts"]);
  for (const id of ["a", "b", "c", "d"]) assert.equal(story.stage(id).merged, true);
  return story;
}
