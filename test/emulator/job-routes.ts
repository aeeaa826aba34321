import { jobJson, listJobs } from "./job-records.ts";
import { fail, notFound, ok, paginate, type Routes } from "./route-reply.ts";

/** The jobs of a workflow run (what the runner reported: labels, runner, steps) and one job by id. */
export const jobRoutes: Routes = {
  "actions/list-jobs-for-workflow-run": (request) => {
    const { core, repo } = request;
    const runId = Number(request.params["run_id"]);
    if (!core.state.runs.some((r) => r.repo === repo.fullName && r.id === runId)) return notFound();
    const filter = request.query.get("filter") ?? "latest";
    if (filter !== "latest" && filter !== "all") return fail(422, `Invalid filter: ${filter}`);
    const jobs = listJobs(core.state).filter((j) => j.repo === repo.fullName && j.runId === runId);
    const page = paginate(request, jobs);
    return {
      status: 200,
      body: { total_count: jobs.length, jobs: page.items.map((job) => jobJson(core.json, job)) },
      headers: page.headers,
    };
  },
  "actions/get-job-for-workflow-run": (request) => {
    const id = Number(request.params["job_id"]);
    const job = listJobs(request.core.state).find((j) => j.repo === request.repo.fullName && j.id === id);
    return job ? ok(jobJson(request.core.json, job)) : notFound();
  },
};
