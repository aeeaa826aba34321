import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Job } from "@actions/workflow-parser/model/workflow-template";
import type { MappingToken } from "@actions/workflow-parser/templates/tokens/mapping-token";
import { recordJob, type JobRecord } from "../../emulator/job-records.ts";
import { evaluateToken, toText, type Scope, type Value } from "./evaluate-template.ts";
import { buildGithubContext, describeRunner, type JobDirs } from "./job-contexts.ts";
import { createJobLog } from "./job-log.ts";
import type { Permissions } from "./job-permissions.ts";
import { findKey } from "./load-workflow.ts";
import {
  jobDir,
  type JobConclusion,
  type JobResult,
  type RunContext,
  type StepReport,
  type WorkflowScope,
} from "./run-context.ts";
import { pickRunner, readRunsOn } from "./runs-on.ts";
import { runJobSteps } from "./run-job-steps.ts";

export type JobPlan = {
  id: string;
  /** As GitHub shows it (`stage / run` inside a called workflow). */
  name: string;
  job: Job;
  token: MappingToken;
  scope: WorkflowScope;
  permissions: Permissions;
  needs: Record<string, JobResult>;
};

const DEFAULT_TIMEOUT_MINUTES = 360;

/**
 * Runs one job as GitHub does: `runs-on` picks a runner (none: the job waits queued until the run is
 * cancelled), the job gets a token holding exactly its `permissions:` (`emulator.runnerEnv`), its
 * steps run in its workspace within `timeout-minutes`, then its `outputs` are evaluated. The job, its
 * runner and its steps are recorded for `GET …/runs/{id}/jobs`.
 */
export async function executeJob(ctx: RunContext, plan: JobPlan): Promise<JobResult> {
  const { parser } = ctx.loaded;
  const { emulator } = ctx.settings;
  const needs = Object.fromEntries(Object.entries(plan.needs).map(([id, r]) => [id, r as unknown as Value]));
  const base = { github: { ...ctx.github, job: plan.id }, inputs: plan.scope.inputs, vars: {}, needs };
  const runsOn = plan.job["runs-on"];
  if (!runsOn) throw new Error(`job ${plan.id} has no runs-on`);
  const request = readRunsOn(evaluateToken(parser, runsOn, { contexts: base }));
  const record = recordJob(emulator.state, ctx.run, {
    name: plan.name,
    labels: request.labels,
    now: Date.now(),
  });
  const runner = pickRunner(request, ctx.settings.runners, record.id);
  if (runner === null || ctx.cancel.cancelled) {
    if (runner === null) await waitForCancel(ctx);
    return finish(ctx, plan, record, "cancelled", [], {}, "", "");
  }
  Object.assign(record, {
    status: "in_progress",
    startedAt: Date.now(),
    runnerId: record.id,
    runnerName: runner.name,
    runnerGroupId: runner.environment === "github-hosted" ? 0 : 1,
    runnerGroupName: runner.group,
  });
  record.steps.push({
    name: "Set up job",
    number: 1,
    status: "completed",
    conclusion: "success",
    startedAt: Date.now(),
    completedAt: Date.now(),
  });
  const root = jobDir(ctx.settings.workDir, ctx.run.id, plan.id);
  const dirs: JobDirs = {
    root,
    workspace: path.join(root, "workspace"),
    temp: path.join(root, "temp"),
    home: path.join(root, "home"),
    files: path.join(root, "file_commands"),
    toolCache: path.dirname(ctx.settings.toolCache.bin),
  };
  for (const dir of [dirs.workspace, dirs.temp, dirs.home, dirs.files]) await mkdir(dir, { recursive: true });
  const { GITHUB_TOKEN: token = "", ...vars } = emulator.runnerEnv(ctx.run.id, plan.permissions);
  const eventPath = path.join(dirs.temp, "event.json");
  await writeFile(
    eventPath,
    JSON.stringify({ inputs: ctx.run.inputs, ref: vars["GITHUB_REF"], workflow: ctx.run.workflowPath }),
  );
  const described = describeRunner(runner, dirs);
  const github = {
    ...buildGithubContext(ctx.run, vars),
    job: plan.id,
    token,
    workspace: dirs.workspace,
    event_path: eventPath,
  };
  const log = createJobLog();
  for (const secret of [token, ...Object.values(plan.scope.secrets)]) log.addMask(secret);
  const secrets = { ...plan.scope.secrets, GITHUB_TOKEN: token };
  const jobScope: Scope = { contexts: { ...base, github, secrets, env: plan.scope.env } };
  const jobEnv = Object.fromEntries(
    Object.entries(
      plan.job.env ? (evaluateToken(parser, plan.job.env, jobScope) as Record<string, Value>) : {},
    ).map(([k, v]) => [k, toText(v)]),
  );
  const timeoutToken = findKey(plan.token, "timeout-minutes", parser);
  const timeoutMinutes = timeoutToken
    ? Number(evaluateToken(parser, timeoutToken, { contexts: base }))
    : DEFAULT_TIMEOUT_MINUTES;
  const ran = await runJobSteps(ctx, {
    plan,
    dirs,
    log,
    record,
    contexts: { ...base, github, secrets, runner: described.context },
    env: { ...plan.scope.env, ...jobEnv },
    processEnv: {
      ...ctx.machineEnv,
      HOME: dirs.home,
      ...vars,
      ...described.env,
      GITHUB_JOB: plan.id,
      GITHUB_WORKSPACE: dirs.workspace,
      GITHUB_EVENT_PATH: eventPath,
      ...idTokenRequest(ctx, plan.permissions),
    },
    token,
    deadline: Date.now() + timeoutMinutes * 60_000,
  });
  // GITHUB_TOKEN expires when the job ends.
  emulator.endJob(token);
  if (ran.timedOut)
    log.line(
      `##[error]The job running on runner ${runner.name} has exceeded the maximum execution time of ${timeoutMinutes} minutes.`,
    );
  const conclusion: JobConclusion =
    ran.timedOut || ran.failed ? "failure" : ctx.cancel.cancelled ? "cancelled" : "success";
  const outputs: Record<string, string> = {};
  const outputsToken = plan.job.outputs;
  if (outputsToken) {
    const values = evaluateToken(parser, outputsToken, {
      contexts: { ...ran.contexts, job: { status: conclusion } },
    }) as Record<string, Value>;
    for (const [name, value] of Object.entries(values)) {
      const text = toText(value);
      // GitHub drops a job output that holds a secret ("Skip output 'x' since it may contain secret").
      if (log.masks().some((secret) => text.includes(secret)))
        log.line(`##[warning]Skip output '${name}' since it may contain secret.`);
      else outputs[name] = text;
    }
  }
  return finish(ctx, plan, record, conclusion, ran.steps, outputs, log.text(), dirs.workspace);
}

function waitForCancel(ctx: RunContext): Promise<void> {
  return new Promise((resolve) => {
    if (ctx.cancel.cancelled) resolve();
    else ctx.cancel.waiters.add(resolve);
  });
}

function finish(
  ctx: RunContext,
  plan: JobPlan,
  record: JobRecord,
  conclusion: JobConclusion,
  steps: StepReport[],
  outputs: Record<string, string>,
  log: string,
  workspace: string,
): JobResult {
  const now = Date.now();
  if (record.status === "in_progress")
    record.steps.push({
      name: "Complete job",
      number: record.steps.length + 1,
      status: "completed",
      conclusion: "success",
      startedAt: now,
      completedAt: now,
    });
  Object.assign(record, { status: "completed", conclusion, completedAt: now });
  ctx.settings.onJob({
    runId: ctx.run.id,
    id: plan.id,
    name: plan.name,
    conclusion,
    steps,
    outputs,
    log,
    workspace,
  });
  return { result: conclusion, outputs };
}

/**
 * What GitHub gives a job whose token may request an OIDC token (`id-token: write`): the request URL
 * and its bearer token. The test's scripted endpoint (`cloud.idToken`), else one nothing answers.
 */
function idTokenRequest(ctx: RunContext, permissions: Permissions): Record<string, string> {
  if (permissions["id-token"] !== "write") return {};
  const given = ctx.settings.cloud.idToken;
  return {
    ACTIONS_ID_TOKEN_REQUEST_URL:
      given?.requestUrl ?? `${ctx.settings.emulator.url}/_apis/no-oidc-here/idtoken?api-version=2.0`,
    ACTIONS_ID_TOKEN_REQUEST_TOKEN: given?.requestToken ?? `oidc-request-${randomBytes(12).toString("hex")}`,
  };
}
