import type { CheckResult } from "../../../src/artifacts/stage-result.ts";
import type { ChangeImpactConfig, Stage } from "../../../src/plan/plan.ts";
import { findNewFailures } from "../../../src/stage/find-new-failures.ts";
import { isWorktreeClean, undoWorktreeChanges } from "../git/undo-worktree-changes.ts";
import { resolveInside, type CheckContext } from "./check-context.ts";
import { runCommand, type CommandRun } from "./run-command.ts";
import { tailOutput } from "./tail-output.ts";

/** What `baseline_command` printed before the session, or why there is nothing to compare with. */
export type ChangeImpactBaseline = { sha: string } & (
  { ran: true; output: string; exitCode: number | null } | { ran: false; problem: string }
);

/** New failure lines listed in a check's output, at most. */
const MAX_LINES = 30;

function why(run: CommandRun, timeoutMs: number): string | null {
  if (run.spawnError !== undefined) return `could not start: ${run.spawnError}`;
  if (run.timedOut) return `timed out after ${Math.round(timeoutMs / 1000)} s (process group killed)`;
  return null;
}

function runFromWorkingDir(command: string, stage: Stage, ctx: CheckContext): Promise<CommandRun> | null {
  const cwd = resolveInside(ctx.workspace, stage.working_dir);
  if (cwd === null) return null;
  return runCommand({
    command,
    cwd,
    timeoutMs: ctx.defaultTimeoutMs,
    env: ctx.env,
    ...(ctx.sandbox === undefined ? {} : { runAs: { sandbox: ctx.sandbox, checkout: ctx.workspace } }),
    now: ctx.now,
  });
}

/**
 * Runs the plan's `change_impact.baseline_command` from `working_dir` on the commit the session
 * starts from, as acceptance commands run (the session user, the scrubbed environment, the check
 * timeout). What it changes in a clean checkout is undone (`undone` is told the paths), so the
 * runner's commit after the session holds only the session's work. Null when the plan has no
 * `change_impact` or its policy is `skip`.
 */
export async function captureBaseline(
  config: ChangeImpactConfig | undefined,
  stage: Stage,
  ctx: CheckContext,
  sha: string,
  undone: (paths: string[]) => void,
): Promise<ChangeImpactBaseline | null> {
  if (config === undefined || config.policy === "skip") return null;
  const clean = await isWorktreeClean(ctx.workspace);
  const running = runFromWorkingDir(config.baseline_command, stage, ctx);
  if (running === null)
    return { sha, ran: false, problem: `working_dir ${stage.working_dir} leaves the checkout` };
  const run = await running;
  if (clean) {
    const paths = await undoWorktreeChanges(ctx.workspace);
    if (paths.length > 0) undone(paths);
  }
  const problem = why(run, ctx.defaultTimeoutMs);
  if (problem !== null) return { sha, ran: false, problem: `the baseline command ${problem}` };
  return { sha, ran: true, output: `${run.stdout}\n${run.stderr}`, exitCode: run.exitCode };
}

/**
 * Runs `compare_command` (or the baseline command again) after the session and looks for failure
 * lines the baseline did not have. `policy: fail` (the default) fails the check on any; `warn`
 * passes it with a warning. A comparison that could not be made (no baseline, a command that did
 * not run) is a warning, as in the reference, which skips it; an invalid pattern follows the policy.
 */
export async function compareChangeImpact(
  config: ChangeImpactConfig,
  baseline: ChangeImpactBaseline,
  stage: Stage,
  ctx: CheckContext,
): Promise<CheckResult> {
  const command = config.compare_command ?? config.baseline_command;
  const policy = config.policy ?? "fail";
  const base = {
    kind: "change_impact" as const,
    name: command.slice(0, 1024),
    command: command.slice(0, 4096),
  };
  const output = (lines: string[], run?: CommandRun): string =>
    tailOutput(
      run === undefined ? { failures: lines } : { failures: lines, stdout: run.stdout, stderr: run.stderr },
      ctx.knownSecrets,
    );
  const warning = (text: string, run?: CommandRun): CheckResult => ({
    ...base,
    passed: true,
    warned: true,
    duration_ms: Math.max(0, Math.round(run?.durationMs ?? 0)),
    output_tail: output([`not compared: ${text}`], run),
  });
  if (!baseline.ran) return warning(baseline.problem);
  const running = runFromWorkingDir(command, stage, ctx);
  if (running === null) return warning(`working_dir ${stage.working_dir} leaves the checkout`);
  const run = await running;
  const problem = why(run, ctx.defaultTimeoutMs);
  if (problem !== null) return warning(`the compare command ${problem}`, run);
  const found = findNewFailures(
    baseline.output,
    `${run.stdout}\n${run.stderr}`,
    config.failure_patterns ?? [],
  );
  const timing = {
    duration_ms: Math.max(0, Math.round(run.durationMs)),
    ...(run.exitCode === null ? {} : { exit_code: run.exitCode }),
  };
  const judged = (bad: boolean, lines: string[]): CheckResult => ({
    ...base,
    ...timing,
    passed: !bad || policy !== "fail",
    ...(bad && policy === "warn" ? { warned: true } : {}),
    output_tail: output(lines, bad ? run : undefined),
  });
  if (!found.ok) return judged(true, [`${found.problem} (policy: ${policy})`]);
  const evidence = [
    `baseline at ${baseline.sha.slice(0, 12)}: ${found.baseline.length} failure line(s); now: ${found.current.length}; fixed: ${found.fixed.length}`,
  ];
  if (found.added.length === 0) {
    const none =
      (config.failure_patterns ?? []).length === 0
        ? "no failure_patterns to look for"
        : "no new failure lines";
    return judged(false, [none, ...evidence]);
  }
  const first = found.added[0] ?? "";
  const matched = found.firstMatched ?? "";
  return judged(true, [
    `${found.added.length} new failure line(s) since the baseline (policy: ${policy}), first matching ${JSON.stringify(matched)}: ${first.trim().slice(0, 300)}`,
    ...evidence,
    "new:",
    ...found.added.slice(0, MAX_LINES).map((line) => `+ ${line}`),
    ...(found.fixed.length === 0
      ? []
      : ["fixed:", ...found.fixed.slice(0, MAX_LINES).map((line) => `- ${line}`)]),
  ]);
}
