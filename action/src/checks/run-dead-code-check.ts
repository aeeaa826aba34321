import type { CheckResult } from "../../../src/artifacts/stage-result.ts";
import type { DeadCodeCheck } from "../../../src/plan/plan.ts";
import type { CheckContext } from "./check-context.ts";
import { runCommand } from "./run-command.ts";
import { tailOutput } from "./tail-output.ts";

/** Default markers of dead code in compiler output when the plan names none. */
export const DEFAULT_DEAD_CODE_PATTERNS = ["never used", "is never read", "unused"] as const;

/** Output lines that report dead code: containing a fail pattern and no ignore pattern (substrings). */
export function findDeadCodeLines(output: string, check: DeadCodeCheck): string[] {
  const fail = check.fail_patterns ?? [...DEFAULT_DEAD_CODE_PATTERNS];
  const ignore = check.ignore_patterns ?? [];
  return output
    .split("\n")
    .filter((line) => fail.some((p) => line.includes(p)) && !ignore.some((p) => line.includes(p)));
}

/**
 * Run the dead-code command (a build with warnings on) and fail on lines matching its fail
 * patterns. The command's own exit code is not judged: the point is the warnings.
 */
export async function runDeadCodeCheck(
  check: DeadCodeCheck,
  cwd: string,
  ctx: CheckContext,
): Promise<CheckResult> {
  const run = await runCommand({
    command: check.command,
    cwd,
    timeoutMs: ctx.defaultTimeoutMs,
    env: ctx.env,
    ...(ctx.sandbox === undefined ? {} : { runAs: { sandbox: ctx.sandbox, checkout: ctx.workspace } }),
    now: ctx.now,
  });
  const lines = findDeadCodeLines(`${run.stdout}\n${run.stderr}`, check);
  const failures: string[] = [];
  if (run.spawnError !== undefined) failures.push(`could not start: ${run.spawnError}`);
  if (run.timedOut)
    failures.push(`timed out after ${Math.round(ctx.defaultTimeoutMs / 1000)} s (process group killed)`);
  if (lines.length > 0) failures.push(`${lines.length} dead-code report(s):`, ...lines.slice(0, 50));
  const result: CheckResult = {
    kind: "dead_code",
    name: check.command.slice(0, 1024),
    command: check.command.slice(0, 4096),
    passed: failures.length === 0,
    duration_ms: Math.max(0, Math.round(run.durationMs)),
    output_tail: tailOutput(
      failures.length === 0
        ? { failures: ["no dead-code reports"] }
        : { failures, stderr: run.stderr, stdout: run.stdout },
      ctx.knownSecrets,
    ),
  };
  return run.exitCode === null ? result : { ...result, exit_code: run.exitCode };
}
