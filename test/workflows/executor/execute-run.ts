import type { ReusableWorkflowJob, WorkflowJob } from "@actions/workflow-parser/model/workflow-template";
import { buildRunnerEnv } from "../../emulator/build-runner-env.ts";
import type { RunConclusion } from "../../emulator/create-run-control.ts";
import type { RunRecord } from "../../emulator/emulator-state.ts";
import { recordJob } from "../../emulator/job-records.ts";
import { evaluateExpression, evaluateToken, isTruthy, toText, type Value } from "./evaluate-template.ts";
import { executeJob } from "./execute-job.ts";
import { buildGithubContext } from "./job-contexts.ts";
import {
  checkNestedPermissions,
  DEFAULT_PERMISSIONS,
  PermissionRefused,
  readPermissions,
  type Permissions,
} from "./job-permissions.ts";
import { findJobToken, findKey, loadWorkflow, StartupFailure, type LoadedWorkflow } from "./load-workflow.ts";
import type { UsesResolver } from "./resolve-uses.ts";
import type { ExecutorSettings, JobResult, RunCancel, RunContext, WorkflowScope } from "./run-context.ts";
import { listStatusFunctions } from "./runner-functions.ts";
import { typeCallInputs } from "./type-call-inputs.ts";

/**
 * Runs one dispatched run as GitHub does: reads the workflow file at the run's commit (the default
 * branch's head when it was dispatched), loads it with GitHub's parser (a called workflow from where
 * its `uses:` points), refuses it at startup when a called job asks for more permissions than its
 * caller grants, then runs the jobs in `needs` order, each when its `if:` holds.
 */
export async function executeRun(
  settings: ExecutorSettings,
  resolver: UsesResolver,
  run: RunRecord,
  cancel: RunCancel,
  machineEnv: Record<string, string>,
): Promise<{ conclusion: RunConclusion; startupFailure: string | null }> {
  try {
    return await runLoaded(settings, resolver, run, cancel, machineEnv);
  } catch (error) {
    if (error instanceof StartupFailure || error instanceof PermissionRefused)
      return { conclusion: "startup_failure", startupFailure: error.message };
    throw error;
  }
}

async function runLoaded(
  settings: ExecutorSettings,
  resolver: UsesResolver,
  run: RunRecord,
  cancel: RunCancel,
  machineEnv: Record<string, string>,
): Promise<{ conclusion: RunConclusion; startupFailure: null }> {
  const { emulator } = settings;
  const text = await emulator.repo(run.repo).git.readBlob(run.headSha, run.workflowPath);
  if (text === null) throw new StartupFailure(`${run.workflowPath} is not in ${run.headSha}`);
  const loaded = await loadWorkflow(run.workflowPath, text.toString("utf8"), resolver);
  const vars = buildRunnerEnv({
    url: emulator.url,
    run,
    token: "",
    now: Date.now(),
    ghes: emulator.settings.ghes,
  });
  const ctx: RunContext = {
    settings,
    run,
    loaded,
    resolver,
    cancel,
    machineEnv,
    github: buildGithubContext(run, vars),
  };
  checkPermissions(ctx);
  emulator.runs.start(run.id);
  const { parser } = loaded;
  const root = loaded.roots.get(run.workflowPath);
  const secrets = settings.secrets;
  const inputs = run.inputs as Record<string, Value>;
  const envToken = findKey(root, "env", parser);
  const env = envToken
    ? textMap(
        evaluateToken(parser, envToken, { contexts: { github: ctx.github, inputs, secrets, vars: {} } }),
      )
    : {};
  const scope: WorkflowScope = {
    file: run.workflowPath,
    inputs,
    secrets,
    env,
    inherited: DEFAULT_PERMISSIONS,
  };
  const results = await runGraph(ctx, loaded.template.jobs, scope, "");
  const all = [...results.values()].map((r) => r.result);
  const conclusion: RunConclusion = cancel.cancelled
    ? "cancelled"
    : all.includes("failure")
      ? "failure"
      : "success";
  return { conclusion, startupFailure: null };
}

/** The jobs of one workflow file, each started once every job it needs has finished. */
async function runGraph(
  ctx: RunContext,
  jobs: WorkflowJob[],
  scope: WorkflowScope,
  prefix: string,
): Promise<Map<string, JobResult>> {
  const started = new Map<string, Promise<JobResult>>();
  const start = (job: WorkflowJob): Promise<JobResult> => {
    const id = job.id.value;
    let result = started.get(id);
    if (!result) {
      result = (async () => {
        const needs = job.needs?.map((n) => n.value) ?? [];
        const done = await Promise.all(
          needs.map((n) => start(jobs.find((j) => j.id.value === n) ?? fail(`unknown need ${n}`))),
        );
        return runJob(
          ctx,
          job,
          scope,
          prefix,
          Object.fromEntries(needs.map((n, i) => [n, done[i] as JobResult])),
        );
      })();
      started.set(id, result);
    }
    return result;
  };
  await Promise.all(jobs.map(start));
  const results = new Map<string, JobResult>();
  for (const [id, result] of started) results.set(id, await result);
  return results;
}

async function runJob(
  ctx: RunContext,
  job: WorkflowJob,
  scope: WorkflowScope,
  prefix: string,
  needs: Record<string, JobResult>,
): Promise<JobResult> {
  const { parser } = ctx.loaded;
  const id = job.id.value;
  const name = `${prefix}${job.name ? toText(evaluateToken(parser, job.name, { contexts: { github: ctx.github, inputs: scope.inputs, needs: asValue(needs), vars: {} } })) : id}`;
  const results = Object.values(needs).map((n) => n.result);
  const status = () => ({
    failed: results.includes("failure"),
    cancelled: ctx.cancel.cancelled,
    needSkipped: results.includes("skipped"),
  });
  const contexts = { github: ctx.github, inputs: scope.inputs, needs: asValue(needs), vars: {} };
  if (
    !isTruthy(evaluateExpression(job.if.expression, { contexts, functions: listStatusFunctions(status) }))
  ) {
    const record = recordJob(ctx.settings.emulator.state, ctx.run, { name, labels: [], now: Date.now() });
    Object.assign(record, { status: "completed", conclusion: "skipped", completedAt: Date.now() });
    ctx.settings.onJob({
      runId: ctx.run.id,
      id,
      name,
      conclusion: "skipped",
      steps: [],
      outputs: {},
      log: "",
      workspace: "",
    });
    return { result: "skipped", outputs: {} };
  }
  if (job.type === "job")
    return executeJob(ctx, {
      id,
      name,
      job,
      token: findJobToken(ctx.loaded, scope.file, id),
      scope,
      permissions: effectivePermissions(ctx.loaded, scope.file, id, scope.inherited),
      needs,
    });
  const allowed = effectivePermissions(ctx.loaded, scope.file, id, scope.inherited);
  return runCalledWorkflow(ctx, job, scope, allowed, `${name} / `, contexts);
}

/** A job that calls a reusable workflow: its inputs typed and defaulted, its secrets, its jobs, then its outputs. */
async function runCalledWorkflow(
  ctx: RunContext,
  job: ReusableWorkflowJob,
  caller: WorkflowScope,
  inherited: Permissions,
  prefix: string,
  contexts: Record<string, Value>,
): Promise<JobResult> {
  const { parser } = ctx.loaded;
  const file = job.ref.value;
  const given = job["input-values"]
    ? (evaluateToken(parser, job["input-values"], { contexts }) as Record<string, Value>)
    : {};
  const inputs = typeCallInputs(parser, job["input-definitions"], given, {
    github: ctx.github,
    inputs: given,
    vars: {},
  });
  const secretValues = job["secret-values"]
    ? textMap(
        evaluateToken(parser, job["secret-values"], { contexts: { ...contexts, secrets: caller.secrets } }),
      )
    : {};
  const secrets = job["inherit-secrets"] ? { ...caller.secrets } : secretValues;
  const envToken = findKey(ctx.loaded.roots.get(file), "env", parser);
  const env = envToken
    ? textMap(
        evaluateToken(parser, envToken, { contexts: { github: ctx.github, inputs, secrets, vars: {} } }),
      )
    : {};
  const results = await runGraph(ctx, job.jobs ?? [], { file, inputs, secrets, env, inherited }, prefix);
  const outputs: Record<string, string> = {};
  for (const pair of job.outputs ?? []) {
    const value = findKey(pair.value, "value", parser);
    const jobsContext = asValue(Object.fromEntries(results));
    if (value)
      outputs[toText(evaluateToken(parser, pair.key, { contexts: {} }))] = toText(
        evaluateToken(parser, value, {
          contexts: { github: ctx.github, inputs, vars: {}, jobs: jobsContext },
        }),
      );
  }
  const all = [...results.values()].map((r) => r.result);
  const result = all.includes("failure")
    ? "failure"
    : all.includes("cancelled")
      ? "cancelled"
      : all.every((r) => r === "skipped")
        ? "skipped"
        : "success";
  ctx.settings.onJob({
    runId: ctx.run.id,
    id: job.id.value,
    name: prefix.slice(0, -" / ".length),
    conclusion: result,
    steps: [],
    outputs,
    log: "",
    workspace: "",
    calls: file,
  });
  return { result, outputs };
}

/** What a job's token holds: its `permissions:`, else its workflow's, else (a called job) its caller's or the default. */
function effectivePermissions(
  loaded: LoadedWorkflow,
  file: string,
  jobId: string,
  inherited: Permissions,
): Permissions {
  const own = readPermissions(
    valueOf(loaded, findKey(findJobToken(loaded, file, jobId), "permissions", loaded.parser)),
  );
  const workflow = readPermissions(
    valueOf(loaded, findKey(loaded.roots.get(file), "permissions", loaded.parser)),
  );
  return own ?? workflow ?? inherited;
}

/** GitHub's startup check of every called job's permissions against its caller's (before any `if:`). */
function checkPermissions(ctx: RunContext): void {
  const { loaded, run } = ctx;
  for (const job of loaded.template.jobs) {
    if (job.type !== "reusableWorkflowJob") {
      if (job.strategy) throw new Error(`job ${job.id.value}: the executor does not run matrix strategies`);
      continue;
    }
    const allowed = effectivePermissions(loaded, run.workflowPath, job.id.value, DEFAULT_PERMISSIONS);
    for (const called of job.jobs ?? []) {
      if (called.type !== "job" || called.strategy)
        throw new Error(`${job.ref.value}: the executor runs one level of called workflow, without matrix`);
      checkNestedPermissions(
        called.id.value,
        effectivePermissions(loaded, job.ref.value, called.id.value, allowed),
        allowed,
      );
    }
  }
}

function valueOf(loaded: LoadedWorkflow, token: ReturnType<typeof findKey>): Value | undefined {
  return token ? evaluateToken(loaded.parser, token, { contexts: {} }) : undefined;
}

function textMap(value: Value): Record<string, string> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toText(v)]));
}

function asValue(record: Record<string, JobResult>): Value {
  return JSON.parse(JSON.stringify(record)) as Value;
}

function fail(message: string): never {
  throw new Error(message);
}
