import { isDependencySatisfied } from "../graph/ready-stages.ts";
import type { StageState } from "./state.ts";
import type { StepContext } from "./step-context.ts";
import { moveStage } from "./step-context.ts";

/** Back in line: queued when its dependencies are completed and merged, else waiting for them. */
export function requeueStage(ctx: StepContext, stage: StageState, note: string): boolean {
  const ready = stage.dependencies.every((dep) => isDependencySatisfied(ctx.state.stages[dep]));
  return moveStage(ctx, stage, ready ? "queued" : "waiting-for-deps", note);
}
