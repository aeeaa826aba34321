import type { SuccessCriteria } from "../../../src/plan/plan.ts";
import type { CommandRun } from "./run-command.ts";

export type Evaluation = { passed: boolean; failures: string[] };

/**
 * Whether a command run meets its success criteria (exit code 0 unless told otherwise). Each
 * failure is a sentence a person reads.
 */
export function evaluateRun(run: CommandRun, criteria: SuccessCriteria, timeoutMs: number): Evaluation {
  const failures: string[] = [];
  if (run.spawnError !== undefined) failures.push(`could not start: ${run.spawnError}`);
  else if (run.timedOut)
    failures.push(`timed out after ${Math.round(timeoutMs / 1000)} s (process group killed)`);
  else {
    const expected = criteria.exit_code ?? 0;
    if (run.exitCode !== expected) failures.push(`exit code ${run.exitCode ?? "none"}, expected ${expected}`);
  }
  for (const text of criteria.stdout_contains ?? [])
    if (!run.stdout.includes(text)) failures.push(`stdout does not contain ${JSON.stringify(text)}`);
  for (const text of criteria.stdout_not_contains ?? [])
    if (run.stdout.includes(text)) failures.push(`stdout contains ${JSON.stringify(text)}`);
  if (criteria.stderr_empty === true && run.stderr.trim() !== "") failures.push("stderr is not empty");
  for (const text of criteria.stderr_contains ?? [])
    if (!run.stderr.includes(text)) failures.push(`stderr does not contain ${JSON.stringify(text)}`);
  return { passed: failures.length === 0, failures };
}
