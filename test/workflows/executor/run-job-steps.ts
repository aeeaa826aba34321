import path from "node:path";
import type { Step } from "@actions/workflow-parser/model/workflow-template";
import type { JobRecord, JobStepRecord } from "../../emulator/job-records.ts";
import {
  evaluateExpression,
  evaluateToken,
  isTruthy,
  toText,
  toTextMap,
  type Scope,
  type Value,
} from "./evaluate-template.ts";
import type { JobDirs } from "./job-contexts.ts";
import type { JobLog } from "./job-log.ts";
import { findKey, listStepTokens } from "./load-workflow.ts";
import type { JobPlan } from "./execute-job.ts";
import type { JobConclusion, RunContext, StepReport } from "./run-context.ts";
import { hashFilesFunction, listStatusFunctions } from "./runner-functions.ts";
import { runStepProcess, writeScript, type JobEffects, type StepRun } from "./run-step-process.ts";
import type { StepProcess } from "./step-process.ts";
import { prepareActionStep, type StepHost } from "./run-action-step.ts";

export type StepsInput = {
  plan: JobPlan;
  dirs: JobDirs;
  log: JobLog;
  record: JobRecord;
  /** The job's contexts (github, inputs, needs, vars, secrets, runner). */
  contexts: Record<string, Value>;
  /** The workflow's and the job's `env:`. */
  env: Record<string, string>;
  /** What every step's process starts from (machine, runner and GITHUB_* variables, no token). */
  processEnv: Record<string, string>;
  token: string;
  deadline: number;
};

type Post = { name: string; run: () => Promise<StepRun> };

/**
 * The steps of a job in order: each `if:` with the runner's status functions (a failed step skips the
 * rest unless their `if:` says otherwise; a cancel or the job's time limit makes `cancelled()` true),
 * `run:` in bash, JavaScript actions in node with `INPUT_*`, first-party actions through their
 * stand-ins; then the `post` of every action that ran, last first.
 */
export async function runJobSteps(ctx: RunContext, input: StepsInput) {
  const { parser } = ctx.loaded;
  const { plan, log, record } = input;
  const effects: JobEffects = { env: {}, path: [], summary: [] };
  const steps: Record<string, Value> = {};
  const reports: StepReport[] = [];
  const posts: Post[] = [];
  let failed = false;
  let timedOut = false;
  const status = () => ({ failed, cancelled: ctx.cancel.cancelled || timedOut });
  const jobStatus = (): string => (failed ? "failure" : status().cancelled ? "cancelled" : "success");
  const scopeOf = (stepEnv: Record<string, string>): Scope => ({
    contexts: {
      ...input.contexts,
      env: { ...input.env, ...effects.env, ...stepEnv },
      job: { status: jobStatus() },
      steps,
    },
    functions: [...listStatusFunctions(status), hashFilesFunction(input.dirs.workspace)],
  });
  // Past the job's time limit, the steps that still run (`always()`, posts) have only their own.
  let jobLimitBinds = false;
  const limits = (stepTimeout: number | null) => {
    const left = timedOut ? null : input.deadline - Date.now();
    const timeoutMs = left === null ? stepTimeout : stepTimeout === null ? left : Math.min(stepTimeout, left);
    jobLimitBinds = left !== null && timeoutMs === left;
    return { timeoutMs, capMs: ctx.settings.capMs };
  };
  const processEnv = (stepEnv: Record<string, string>, action: boolean): Record<string, string> => {
    const base = Object.fromEntries(
      Object.entries(input.processEnv).filter(([name]) => action || !name.startsWith("ACTIONS_")),
    );
    const env = { ...base, ...input.env, ...effects.env, ...stepEnv };
    env["PATH"] = [...effects.path, ctx.settings.toolCache.bin, input.processEnv["PATH"] ?? ""].join(
      path.delimiter,
    );
    return env;
  };
  const spawned: StepProcess[] = [];
  const host: StepHost = {
    workspace: input.dirs.workspace,
    filesDir: input.dirs.files,
    log,
    effects,
    permissions: plan.permissions,
    register: (step) => {
      spawned.push(step);
      ctx.cancel.processes.add(step);
      if (ctx.cancel.cancelled) step.cancel();
      return () => void ctx.cancel.processes.delete(step);
    },
  };
  const stepRecord = (name: string): JobStepRecord => {
    const step: JobStepRecord = {
      name,
      number: record.steps.length + 1,
      status: "in_progress",
      conclusion: null,
      startedAt: Date.now(),
      completedAt: null,
    };
    record.steps.push(step);
    return step;
  };
  const tokens = listStepTokens(ctx.loaded, plan.token);
  for (const [index, step] of plan.job.steps.entries()) {
    const token = tokens[index];
    if (!token || !("if" in step) || !("env" in step))
      throw new Error(`step ${index + 1} of job ${plan.id} is not a run or uses step`);
    const uses = "uses" in step ? step.uses.value : null;
    const stepEnvToken = step.env;
    const shown = displayName(parser, step, scopeOf({}));
    const run = isTruthy(evaluateExpression(step.if.expression, scopeOf({})));
    const entry = stepRecord(shown);
    if (!run) {
      Object.assign(entry, { status: "completed", conclusion: "skipped", completedAt: Date.now() });
      if (!step.id.startsWith("__"))
        steps[step.id] = { outputs: {}, outcome: "skipped", conclusion: "skipped" };
      reports.push({
        id: step.id,
        name: shown,
        uses,
        outcome: "skipped",
        conclusion: "skipped",
        outputs: {},
        exit: null,
      });
      continue;
    }
    log.line(`##[group]Run ${uses ?? shown}`);
    const stepEnv = stepEnvToken ? toTextMap(evaluateToken(parser, stepEnvToken, scopeOf({}))) : {};
    const scope = scopeOf(stepEnv);
    const stepTimeout = minutes(parser, findKey(token, "timeout-minutes", parser), scope);
    let result: StepRun;
    if (uses === null) {
      if (!("run" in step)) throw new Error("unreachable");
      const shell = findKey(token, "shell", parser);
      if (shell && toText(evaluateToken(parser, shell, scope)) !== "bash")
        throw new Error(`step ${shown}: the executor runs bash steps only`);
      const dirToken = findKey(token, "working-directory", parser);
      const cwd = path.resolve(
        input.dirs.workspace,
        dirToken ? toText(evaluateToken(parser, dirToken, scope)) : "",
      );
      result = await runStepProcess({
        command: "bash",
        args: await writeScript(input.dirs.temp, toText(evaluateToken(parser, step.run, scope))),
        env: { ...processEnv(stepEnv, false), GITHUB_ACTION: step.id },
        cwd,
        filesDir: host.filesDir,
        log,
        effects,
        limits: limits(stepTimeout),
        register: host.register,
      });
    } else {
      const action = await prepareActionStep(ctx, host, {
        uses,
        with: findKey(token, "with", parser),
        scope,
        env: processEnv(stepEnv, true),
        stepId: step.id,
      });
      result = await action.run("main", {}, limits(stepTimeout));
      const saved = result.state;
      if (action.hasPost)
        posts.push({ name: `Post ${shown}`, run: () => action.run("post", saved, limits(null)) });
    }
    log.line("##[endgroup]");
    if (result.exit?.timedOut && jobLimitBinds) timedOut = true;
    const continueToken = step["continue-on-error"];
    const continueOnError =
      typeof continueToken === "boolean"
        ? continueToken
        : continueToken
          ? isTruthy(evaluateToken(parser, continueToken, scope))
          : false;
    const conclusion: JobConclusion =
      result.outcome === "failure" && continueOnError ? "success" : result.outcome;
    if (conclusion === "failure") failed = true;
    Object.assign(entry, { status: "completed", conclusion, completedAt: Date.now() });
    if (!step.id.startsWith("__"))
      steps[step.id] = { outputs: result.outputs, outcome: result.outcome, conclusion };
    reports.push({
      id: step.id,
      name: shown,
      uses,
      outcome: result.outcome,
      conclusion,
      outputs: result.outputs,
      exit: result.exit,
    });
  }
  for (const post of posts.reverse()) {
    const entry = stepRecord(post.name);
    log.line(`##[group]${post.name}`);
    const result = await post.run();
    log.line("##[endgroup]");
    Object.assign(entry, { status: "completed", conclusion: result.outcome, completedAt: Date.now() });
  }
  for (const step of spawned) step.cleanUp();
  return { failed, timedOut, steps: reports, contexts: scopeOf({}).contexts };
}

function displayName(parser: RunContext["loaded"]["parser"], step: Step, scope: Scope): string {
  if (step.name) return toText(evaluateToken(parser, step.name, scope));
  if ("uses" in step) return `Run ${step.uses.value}`;
  if ("run" in step)
    return `Run ${(parser.isString(step.run) ? step.run.value : step.run.toString()).split("\n")[0] ?? ""}`;
  return step.id;
}

function minutes(
  parser: RunContext["loaded"]["parser"],
  token: ReturnType<typeof findKey>,
  scope: Scope,
): number | null {
  return token ? Number(evaluateToken(parser, token, scope)) * 60_000 : null;
}
