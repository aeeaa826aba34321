import type { WorkflowJob } from "@actions/workflow-parser/model/workflow-template";
import { buildRunnerEnv } from "../../emulator/build-runner-env.ts";
import type { RunConclusion } from "../../emulator/create-run-control.ts";
import type { RunRecord } from "../../emulator/emulator-state.ts";
import { recordJob } from "../../emulator/job-records.ts";
import {
  asValue,
  evaluateExpression,
  evaluateToken,
  isTruthy,
  toText,
  toTextMap,
  type Value,
} from "./evaluate-template.ts";
import { executeJob } from "./execute-job.ts";
import { buildGithubContext } from "./job-contexts.ts";
import { DEFAULT_PERMISSIONS, PermissionRefused } from "./job-permissions.ts";
import { checkCalledPermissions, effectivePermissions } from "./resolve-job-permissions.ts";
import { runCalledWorkflow } from "./run-called-workflow.ts";
import { findJobToken, findKey, loadWorkflow, StartupFailure } from "./load-workflow.ts";
import type { UsesResolver } from "./resolve-uses.ts";
import type { ExecutorSettings, JobResult, RunCancel, RunContext, WorkflowScope } from "./run-context.ts";
import { listStatusFunctions } from "./runner-functions.ts";

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
  checkCalledPermissions(loaded, run.workflowPath);
  emulator.runs.start(run.id);
  const { parser } = loaded;
  const root = loaded.roots.get(run.workflowPath);
  const secrets = settings.secrets;
  const inputs = run.inputs as Record<string, Value>;
  const envToken = findKey(root, "env", parser);
  const env = envToken
    ? toTextMap(
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
export async function runGraph(
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
  return runCalledWorkflow(
    ctx,
    { job, caller: scope, inherited: allowed, prefix: `${name} / `, contexts },
    runGraph,
  );
}

function fail(message: string): never {
  throw new Error(message);
}
