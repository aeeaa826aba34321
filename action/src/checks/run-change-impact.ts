import type { CheckResult } from "../../../src/artifacts/stage-result.ts";
import type { ChangeImpactConfig, Stage } from "../../../src/plan/plan.ts";
import { findNewFailures } from "../../../src/stage/find-new-failures.ts";
import { withCheckoutAt } from "../git/find-fork-point.ts";
import { isWorktreeClean, undoWorktreeChanges } from "../git/undo-worktree-changes.ts";
import { resolveInside, type CheckContext } from "./check-context.ts";
import { runCommand, type CommandRun } from "./run-command.ts";
import { tailOutput } from "./tail-output.ts";

/** What `baseline_command` printed before the session, or why there is nothing to compare with. */
export type ChangeImpactBaseline = {
  sha: string;
  /** Why the baseline is not where it should be (the fork point of a retry's branch). */
  note?: string;
} & ({ ran: true; output: string; exitCode: number | null } | { ran: false; problem: string });

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
 * Where the baseline is taken: `head`, the commit the session starts from, unless the attempt's
 * branch holds earlier attempts' work: then `forkPoint`, where the branch left the merge point
 * (null: not known, and the baseline is taken on `head` with a note saying so).
 */
export type BaselineCommit = { head: string; forkPoint?: string | null };

/**
 * Runs the plan's `change_impact.baseline_command` from `working_dir` before the session, as
 * acceptance commands run (the session user, the scrubbed environment, the check timeout), on the
 * commit the stage's work starts from: the merge point (switching a clean checkout there and back
 * for a retry). What it changes in a clean checkout is undone (`undone` is told the paths), so the
 * runner's commit after the session holds only the session's work. Null when the plan has no
 * `change_impact` or its policy is `skip`.
 */
export async function captureBaseline(
  config: ChangeImpactConfig | undefined,
  stage: Stage,
  ctx: CheckContext,
  where: BaselineCommit,
  undone: (paths: string[]) => void,
): Promise<ChangeImpactBaseline | null> {
  if (config === undefined || config.policy === "skip") return null;
  const clean = await isWorktreeClean(ctx.workspace);
  const measure = async (): Promise<{ run: CommandRun | null }> => {
    const running = runFromWorkingDir(config.baseline_command, stage, ctx);
    const run = running === null ? null : await running;
    if (clean) {
      const paths = await undoWorktreeChanges(ctx.workspace);
      if (paths.length > 0) undone(paths);
    }
    return { run };
  };
  const fork = where.forkPoint;
  let sha = where.head;
  let note: string | undefined;
  let measured: { run: CommandRun | null } | null = null;
  if (fork === null)
    note =
      "taken on the attempt's start: the merge point's history was not fetched, so earlier attempts' work is in the baseline";
  else if (fork !== undefined && fork !== where.head) {
    if (!clean)
      note =
        "taken on the attempt's start: the checkout was not clean, so it was not switched to the merge point";
    else {
      measured = await withCheckoutAt(ctx.workspace, fork, measure);
      if (measured === null)
        note = `taken on the attempt's start: the checkout could not be switched to ${fork.slice(0, 12)}`;
      else sha = fork;
    }
  }
  const { run } = measured ?? (await measure());
  const noted = note === undefined ? {} : { note };
  if (run === null)
    return { sha, ...noted, ran: false, problem: `working_dir ${stage.working_dir} leaves the checkout` };
  const problem = why(run, ctx.defaultTimeoutMs);
  if (problem !== null) return { sha, ...noted, ran: false, problem: `the baseline command ${problem}` };
  return { sha, ...noted, ran: true, output: `${run.stdout}\n${run.stderr}`, exitCode: run.exitCode };
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
    ...(baseline.note === undefined ? [] : [`(baseline ${baseline.note})`]),
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
