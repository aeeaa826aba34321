import { statSync } from "node:fs";
import type { CheckKind, CheckResult } from "../../../src/artifacts/stage-result.ts";
import type { SuccessCriteria } from "../../../src/plan/plan.ts";
import type { CheckContext } from "./check-context.ts";
import { evaluateRun } from "./evaluate-run.ts";
import { runCommand } from "./run-command.ts";
import { tailOutput } from "./tail-output.ts";
import { findFailureLocations } from "../../../src/stage/find-failure-locations.ts";

export type CommandCheck = {
  kind: CheckKind;
  name: string;
  command: string;
  /** The command as the check run shows it, when `command` wraps it (the stage's setup first). */
  shown?: string;
  cwd: string;
  criteria: SuccessCriteria;
  timeoutMs?: number;
};

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Run a command check and turn what happened into a `CheckResult`. */
export async function runCommandCheck(check: CommandCheck, ctx: CheckContext): Promise<CheckResult> {
  const timeoutMs = check.timeoutMs ?? ctx.defaultTimeoutMs;
  const run = await runCommand({
    command: check.command,
    cwd: check.cwd,
    timeoutMs,
    env: ctx.env,
    ...(ctx.sandbox === undefined ? {} : { runAs: { sandbox: ctx.sandbox, checkout: ctx.workspace } }),
    now: ctx.now,
  });
  const evaluation = evaluateRun(run, check.criteria, timeoutMs);
  const result: CheckResult = {
    kind: check.kind,
    name: clip(check.name, 1024),
    command: clip(check.shown ?? check.command, 4096),
    passed: evaluation.passed,
    duration_ms: Math.max(0, Math.round(run.durationMs)),
    output_tail: tailOutput(
      { failures: evaluation.failures, stdout: run.stdout, stderr: run.stderr },
      ctx.knownSecrets,
    ),
  };
  const locations = evaluation.passed
    ? []
    : findFailureLocations(
        `${run.stdout}\n${run.stderr}`,
        { cwd: check.cwd, workspace: ctx.workspace },
        isFile,
      );
  return {
    ...result,
    ...(run.exitCode === null ? {} : { exit_code: run.exitCode }),
    ...(locations.length === 0 ? {} : { locations }),
  };
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
