import type { ReusableWorkflowJob, WorkflowJob } from "@actions/workflow-parser/model/workflow-template";
import { asValue, evaluateToken, toText, toTextMap, type Value } from "./evaluate-template.ts";
import type { Permissions } from "./job-permissions.ts";
import { findKey } from "./load-workflow.ts";
import type { JobResult, RunContext, WorkflowScope } from "./run-context.ts";
import { typeCallInputs } from "./type-call-inputs.ts";

/** Runs the jobs of one workflow file in `needs` order (execute-run.ts). */
export type RunGraph = (
  ctx: RunContext,
  jobs: WorkflowJob[],
  scope: WorkflowScope,
  prefix: string,
) => Promise<Map<string, JobResult>>;

/** A job that calls a reusable workflow: its inputs typed and defaulted, its secrets, its jobs, then its outputs. */
export async function runCalledWorkflow(
  ctx: RunContext,
  call: {
    job: ReusableWorkflowJob;
    caller: WorkflowScope;
    /** What the calling job grants: what its called jobs that declare no `permissions:` get. */
    inherited: Permissions;
    /** `<calling job> / `: how GitHub names the called jobs. */
    prefix: string;
    contexts: Record<string, Value>;
  },
  runGraph: RunGraph,
): Promise<JobResult> {
  const { job, caller, inherited, prefix, contexts } = call;
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
    ? toTextMap(
        evaluateToken(parser, job["secret-values"], { contexts: { ...contexts, secrets: caller.secrets } }),
      )
    : {};
  const secrets = job["inherit-secrets"] ? { ...caller.secrets } : secretValues;
  const envToken = findKey(ctx.loaded.roots.get(file), "env", parser);
  const env = envToken
    ? toTextMap(
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
