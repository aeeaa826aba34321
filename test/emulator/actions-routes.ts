import { readWorkflow, renderRunName } from "./read-workflow.ts";
import type { RepoRecord, RunRecord } from "./emulator-state.ts";
import { runJson } from "./github-json.ts";
import { fail, notFound, ok, paginate, readString, type RouteRequest, type Routes } from "./route-reply.ts";

/** Workflow dispatch, runs (get, list with filters, cancel) and workflows. */

/** `{workflow_id}` is a number or a file name under `.github/workflows/`. */
function workflowPathOf(repo: RepoRecord, id: string): string {
  if (/^\d+$/.test(id)) {
    for (const [path, known] of repo.workflows) if (String(known) === id) return path;
    return "";
  }
  return `.github/workflows/${id}`;
}

function workflowIdOf(request: RouteRequest, path: string): number {
  const { repo, core } = request;
  let id = repo.workflows.get(path);
  if (id === undefined) {
    id = core.state.nextId += 1;
    repo.workflows.set(path, id);
  }
  return id;
}

async function dispatch(request: RouteRequest) {
  const { repo, core, body, settings } = request;
  const path = workflowPathOf(repo, request.params["workflow_id"] ?? "");
  if (path === "" || !(await repo.git.readBlob(repo.defaultBranch, path))) return notFound();
  if (settings.refuseReturnRunDetails && "return_run_details" in body) {
    return fail(422, 'Invalid request.\n\n"return_run_details" is not a permitted key.');
  }
  const ref = (readString(body, "ref") ?? "").replace(/^refs\/(heads|tags)\//, "");
  const headSha = (await repo.git.readBranch(ref)) ?? (await repo.git.resolve(`refs/tags/${ref}`));
  if (!headSha) return fail(422, `No ref found for: ${ref}`);
  const workflow = await readWorkflow(repo, headSha, path);
  if (!workflow) return notFound();
  if (!workflow.dispatchable) return fail(422, "Workflow does not have 'workflow_dispatch' trigger");
  const given = (body["inputs"] ?? {}) as Record<string, unknown>;
  const names = Object.keys(given);
  if (names.length > settings.maxDispatchInputs)
    return fail(
      422,
      `you may only define up to ${settings.maxDispatchInputs} \`inputs\` for a \`workflow_dispatch\` event`,
    );
  const unexpected = names.filter((name) => !workflow.inputs.has(name));
  if (unexpected.length > 0) return fail(422, `Unexpected inputs provided: ${JSON.stringify(unexpected)}`);
  const inputs: Record<string, string> = {};
  for (const [name, spec] of workflow.inputs) {
    const value = given[name];
    if (value === undefined && spec.required) return fail(422, `Required input '${name}' not provided`);
    const text =
      value === undefined ? spec.default : typeof value === "string" ? value : JSON.stringify(value);
    if (text !== undefined) inputs[name] = text;
  }
  const displayTitle = workflow.runName
    ? renderRunName(workflow.runName, { inputs, actor: request.login, refName: ref, workflow: workflow.name })
    : workflow.name;
  const run = request.runs.create(repo, workflow, workflowIdOf(request, path), {
    ref,
    headSha,
    inputs,
    actor: request.login,
    displayTitle,
  });
  if (body["return_run_details"] !== true) return { status: 204 };
  const json = runJson(core.json, repo, run);
  return ok({ workflow_run_id: run.id, run_url: json["url"], html_url: json["html_url"] });
}

function runOf(request: RouteRequest): RunRecord | undefined {
  const id = Number(request.params["run_id"]);
  return request.core.state.runs.find((r) => r.repo === request.repo.fullName && r.id === id);
}

function listRuns(request: RouteRequest, workflowPath: string | null) {
  const { core, repo, query } = request;
  const status = query.get("status");
  const runs = core.state.runs
    .filter((r) => r.repo === repo.fullName && (workflowPath === null || r.workflowPath === workflowPath))
    .filter((r) => query.get("event") === null || r.event === query.get("event"))
    .filter((r) => query.get("branch") === null || r.headBranch === query.get("branch"))
    .filter((r) => query.get("actor") === null || r.actor === query.get("actor"))
    .filter((r) => query.get("head_sha") === null || r.headSha === query.get("head_sha"))
    .filter((r) => status === null || r.status === status || r.conclusion === status)
    .sort((a, b) => b.id - a.id);
  const page = paginate(request, runs);
  return {
    status: 200,
    body: { total_count: runs.length, workflow_runs: page.items.map((r) => runJson(core.json, repo, r)) },
    headers: page.headers,
  };
}

function cancel(request: RouteRequest) {
  const run = runOf(request);
  if (!run) return notFound();
  if (run.status === "completed") return fail(409, "Cannot cancel a workflow run that is completed.");
  request.runs.requestCancel(run);
  return ok({}, 202);
}

export const actionsRoutes: Routes = {
  "actions/create-workflow-dispatch": dispatch,
  "actions/get-workflow-run": (request) => {
    const run = runOf(request);
    return run ? ok(runJson(request.core.json, request.repo, run)) : notFound();
  },
  "actions/list-workflow-runs": async (request) => {
    const path = workflowPathOf(request.repo, request.params["workflow_id"] ?? "");
    if (path === "" || !(await request.repo.git.readBlob(request.repo.defaultBranch, path)))
      return notFound();
    return listRuns(request, path);
  },
  "actions/list-workflow-runs-for-repo": (request) => listRuns(request, null),
  "actions/cancel-workflow-run": cancel,
  "actions/force-cancel-workflow-run": cancel,
  "actions/get-workflow": async (request) => {
    const { repo, core } = request;
    const path = workflowPathOf(repo, request.params["workflow_id"] ?? "");
    const workflow = path === "" ? null : await readWorkflow(repo, repo.defaultBranch, path);
    if (!workflow) return notFound();
    const id = workflowIdOf(request, path);
    const api = `${core.json.url}/repos/${repo.fullName}/actions/workflows/${id}`;
    return ok({
      id,
      node_id: `W_${id}`,
      name: workflow.name,
      path,
      state: "active",
      created_at: "2020-01-01T00:00:00Z",
      updated_at: "2020-01-01T00:00:00Z",
      url: api,
      html_url: api,
      badge_url: `${api}/badge.svg`,
    });
  },
};
