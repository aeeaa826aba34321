import { randomUUID } from "node:crypto";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { JobLog } from "./job-log.ts";
import { createRunnerFiles, readRunnerFiles } from "./runner-files.ts";
import { startStepProcess, type StepExit, type StepProcess } from "./step-process.ts";

/** What a step's commands changed for the job's later steps. */
export type JobEffects = {
  /** `$GITHUB_ENV` and `exportVariable`: variables of every later step. */
  env: Record<string, string>;
  /** `$GITHUB_PATH`: prepended to later steps' PATH, newest first. */
  path: string[];
  summary: string[];
};

export type StepOutcome = "success" | "failure" | "cancelled";

export type StepRun = {
  outcome: StepOutcome;
  outputs: Record<string, string>;
  /** `$GITHUB_STATE` (an action's `main` hands it to its `post` as `STATE_*`). */
  state: Record<string, string>;
  exit: StepExit | null;
};

export type StepLimits = {
  /** `timeout-minutes` of the step or what is left of the job's; null: none. */
  timeoutMs: number | null;
  /** A test's guard: killed at once after this (as a lost runner), recorded as timed out. */
  capMs: number | null;
};

/**
 * Runs one step's process with fresh runner files (`$GITHUB_OUTPUT`, `$GITHUB_ENV`, …), its output
 * into the job log, and applies what it wrote to the job. `register` lets a cancel reach it.
 */
export async function runStepProcess(input: {
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  cwd: string;
  filesDir: string;
  log: JobLog;
  effects: JobEffects;
  limits: StepLimits;
  register: (step: StepProcess) => () => void;
}): Promise<StepRun> {
  const files = await createRunnerFiles(input.filesDir);
  const step = startStepProcess({
    command: input.command,
    args: input.args,
    env: { ...input.env, ...files },
    cwd: input.cwd,
    onOutput: (chunk) => input.log.write(chunk),
  });
  const unregister = input.register(step);
  const timers: NodeJS.Timeout[] = [];
  if (input.limits.timeoutMs !== null)
    timers.push(setTimeout(() => step.timeOut(), Math.max(input.limits.timeoutMs, 0)));
  if (input.limits.capMs !== null)
    timers.push(
      setTimeout(() => {
        input.log.line(
          `##[error]the test's step time limit (${input.limits.capMs} ms) ran out: the step's processes were killed`,
        );
        step.timeOut();
        step.kill();
      }, input.limits.capMs),
    );
  const exit = await step.done;
  for (const timer of timers) clearTimeout(timer);
  unregister();
  input.log.flush();
  const written = await readRunnerFiles(files);
  Object.assign(input.effects.env, written.env);
  input.effects.path.unshift(...written.path.reverse());
  if (written.summary !== "") input.effects.summary.push(written.summary);
  const outcome: StepOutcome =
    exit.cancelled && !exit.timedOut
      ? "cancelled"
      : exit.code === 0 && !exit.timedOut
        ? "success"
        : "failure";
  if (exit.timedOut) input.log.line("##[error]The action has timed out.");
  else if (outcome === "failure")
    input.log.line(`##[error]Process completed with exit code ${exit.code ?? exit.signal}.`);
  return { outcome, outputs: written.outputs, state: written.state, exit };
}

/** A `run:` step's script in a file of RUNNER_TEMP, run as GitHub's default bash: `bash --noprofile --norc -eo pipefail {0}`. */
export async function writeScript(runnerTemp: string, script: string): Promise<string[]> {
  const file = path.join(runnerTemp, `${randomUUID()}.sh`);
  await writeFile(file, script);
  return ["--noprofile", "--norc", "-eo", "pipefail", file];
}
