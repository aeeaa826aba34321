import type { JobLog } from "./job-log.ts";
import type { Permissions } from "./job-permissions.ts";
import type { RunContext } from "./run-context.ts";
import type { JobEffects, StepRun } from "./run-step-process.ts";
import { StandInFailed, type StandIn } from "./stand-ins/stand-ins.ts";

/**
 * A stand-in's `main` or `post`, in the executor's process, with what a real action's process gets:
 * its inputs, the step's environment and the runner's commands. A `StandInFailed` fails the step with
 * its message; anything else is the executor's problem and fails the test.
 */
export async function runStandIn(
  ctx: RunContext,
  standIn: StandIn,
  which: "main" | "post",
  input: {
    inputs: Record<string, string>;
    env: Record<string, string>;
    workspace: string;
    permissions: Permissions;
    state: Record<string, string>;
    log: JobLog;
    effects: JobEffects;
  },
): Promise<StepRun> {
  const outputs: Record<string, string> = {};
  const state: Record<string, string> = {};
  const run = which === "main" ? standIn.main : standIn.post;
  if (!run) return { outcome: "success", outputs, state, exit: null };
  try {
    await run({
      inputs: input.inputs,
      env: input.env,
      workspace: input.workspace,
      permissions: input.permissions,
      state: input.state,
      cloud: ctx.settings.cloud,
      cloneUrl: (repository) => ctx.settings.emulator.cloneUrl(repository),
      commands: {
        log: (line) => input.log.line(line),
        setOutput: (name, value) => void (outputs[name] = value),
        exportVariable: (name, value) => void (input.effects.env[name] = value),
        addMask: (value) => input.log.addMask(value),
        saveState: (name, value) => void (state[name] = value),
      },
    });
    return { outcome: ctx.cancel.cancelled ? "cancelled" : "success", outputs, state, exit: null };
  } catch (error) {
    if (!(error instanceof StandInFailed)) throw error;
    input.log.line(`##[error]${error.message}`);
    return { outcome: "failure", outputs, state, exit: null };
  }
}
