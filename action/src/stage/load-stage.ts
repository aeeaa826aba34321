import { readFile } from "node:fs/promises";
import path from "node:path";
import { listLifecycleNames } from "../../../src/plan/lifecycle-path.ts";
import { parsePlan } from "../../../src/plan/parse-plan.ts";
import type { Plan, Stage } from "../../../src/plan/plan.ts";
import type { RunStageInputs } from "../run-stage-inputs.ts";

export type LoadedStage = { ok: true; plan: Plan; stage: Stage } | { ok: false; reason: string };

/** The dispatched plan, read and validated in the checkout, and the stage to run. */
export async function loadStage(inputs: RunStageInputs, deps: { workspace: string }): Promise<LoadedStage> {
  const file = path.resolve(deps.workspace, inputs.plan_path);
  if (!file.startsWith(`${path.resolve(deps.workspace)}${path.sep}`))
    return { ok: false, reason: `plan_path ${inputs.plan_path} leaves the checkout` };
  // loom renames the plan file IN_PROGRESS-/DONE- on the pull request's branch: a stage branch cut
  // just before or after the rename has it under either name.
  let text: string | NodeJS.ErrnoException = new Error("not read");
  for (const name of listLifecycleNames(inputs.plan_path)) {
    text = await readFile(path.resolve(deps.workspace, name), "utf8").catch(
      (error: NodeJS.ErrnoException) => error,
    );
    if (typeof text === "string") break;
  }
  if (text instanceof Error)
    return { ok: false, reason: `cannot read the plan ${inputs.plan_path}: ${text.code ?? text.message}` };
  const parsed = parsePlan(inputs.plan_path, text);
  if (!parsed.ok) {
    const first = parsed.errors[0];
    return {
      ok: false,
      reason: `the plan ${inputs.plan_path} is invalid${first === undefined ? "" : `: line ${first.line}: ${first.message}`}`,
    };
  }
  const stage = parsed.plan.stages.find((s) => s.id === inputs.stage_id);
  if (stage === undefined)
    return { ok: false, reason: `the plan ${inputs.plan_path} has no stage ${inputs.stage_id}` };
  return { ok: true, plan: parsed.plan, stage };
}
