import type { CheckResult } from "../../../src/artifacts/stage-result.ts";
import type { AcceptanceCriterion, Stage } from "../../../src/plan/plan.ts";
import { resolveInside, type CheckContext } from "./check-context.ts";
import { checkArtifact, checkRegressionTest, checkWiring } from "./check-files.ts";
import { buildSetupScript, prefixSetup } from "./build-setup-script.ts";
import { runCommandCheck, type CommandCheck } from "./run-command-check.ts";
import { runDeadCodeCheck } from "./run-dead-code-check.ts";

function toCommandCheck(
  kind: "acceptance" | "before_stage" | "after_stage",
  c: AcceptanceCriterion,
  cwd: string,
): CommandCheck {
  if (typeof c === "string") return { kind, name: c, command: c, cwd, criteria: {} };
  const { command, description, timeout_secs, ...criteria } = c;
  return {
    kind,
    name: description ?? command,
    command,
    cwd,
    criteria,
    ...(timeout_secs === undefined ? {} : { timeoutMs: timeout_secs * 1000 }),
  };
}

function outsideCheckout(stage: Stage, ctx: CheckContext): CheckResult[] {
  return [
    {
      kind: "setup",
      name: `working_dir ${stage.working_dir}`,
      passed: false,
      duration_ms: 0,
      output_tail: `working_dir ${JSON.stringify(stage.working_dir)} leaves the checkout ${ctx.workspace}`,
    },
  ];
}

/** The stage's setup commands once, in one shell: a failure names the command that failed. */
function runSetup(setup: readonly string[], cwd: string, ctx: CheckContext): Promise<CheckResult> {
  const shown = setup.join(" && ");
  return runCommandCheck(
    { kind: "setup", name: shown, command: buildSetupScript(setup), shown, cwd, criteria: {} },
    ctx,
  );
}

/** An acceptance criterion not run because the setup it runs after failed. */
function notRun(check: CommandCheck): CheckResult {
  return {
    kind: check.kind,
    name: check.name.slice(0, 1024),
    command: check.command.slice(0, 4096),
    passed: false,
    duration_ms: 0,
    output_tail: "not run: the stage's setup failed (see the setup check)",
  };
}

/** Truth checks that must hold on the branch before the session starts (`before_stage`). */
export async function runBeforeStageChecks(stage: Stage, ctx: CheckContext): Promise<CheckResult[]> {
  const cwd = resolveInside(ctx.workspace, stage.working_dir);
  if (cwd === null) return outsideCheckout(stage, ctx);
  const results: CheckResult[] = [];
  for (const c of stage.before_stage)
    results.push(await runCommandCheck(toCommandCheck("before_stage", c, cwd), ctx));
  return results;
}

/**
 * Every check that judges a finished session, from `working_dir`, one after the other: the setup
 * commands (once, as a check of their own, so a failure names its command), the acceptance
 * criteria (each after the setup commands in its own shell, as the reference runs
 * `setup && command`), artifacts, wiring, the regression test, wiring tests, the dead-code check,
 * and the `after_stage` truth checks. Each result stands alone; only a failed setup skips
 * something: the acceptance criteria that would run after it, recorded as failed and not run.
 */
export async function runStageChecks(stage: Stage, ctx: CheckContext): Promise<CheckResult[]> {
  const cwd = resolveInside(ctx.workspace, stage.working_dir);
  if (cwd === null) return outsideCheckout(stage, ctx);
  const results: CheckResult[] = [];
  const setup = stage.setup.length === 0 ? null : await runSetup(stage.setup, cwd, ctx);
  if (setup !== null) results.push(setup);
  for (const c of stage.acceptance) {
    const check = toCommandCheck("acceptance", c, cwd);
    if (setup?.passed === false) results.push(notRun(check));
    else
      results.push(
        await runCommandCheck(
          { ...check, command: prefixSetup(stage.setup, check.command), shown: check.command },
          ctx,
        ),
      );
  }
  for (const artifact of stage.artifacts) results.push(await checkArtifact(artifact, cwd, ctx));
  for (const wiring of stage.wiring) results.push(await checkWiring(wiring, cwd, ctx));
  if (stage.regression_test !== undefined)
    results.push(await checkRegressionTest(stage.regression_test, cwd, ctx));
  for (const t of stage.wiring_tests) {
    const check: CommandCheck = {
      kind: "wiring_test",
      name: t.name ?? t.description ?? t.command,
      command: t.command,
      cwd,
      criteria: t.success_criteria ?? {},
    };
    results.push(await runCommandCheck(check, ctx));
  }
  if (stage.dead_code_check !== undefined)
    results.push(await runDeadCodeCheck(stage.dead_code_check, cwd, ctx));
  for (const c of stage.after_stage)
    results.push(await runCommandCheck(toCommandCheck("after_stage", c, cwd), ctx));
  return results;
}
