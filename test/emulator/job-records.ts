import type { EmulatorState, RunRecord } from "./emulator-state.ts";
import { takeId } from "./emulator-state.ts";
import { HTML, iso, type Json, type JsonContext } from "./user-json.ts";

export type JobStatus = "queued" | "in_progress" | "completed";
export type JobConclusion = "success" | "failure" | "cancelled" | "skipped";

export type JobStepRecord = {
  name: string;
  number: number;
  status: JobStatus;
  conclusion: JobConclusion | null;
  startedAt: number | null;
  completedAt: number | null;
};

/** A job of a workflow run, as `GET …/actions/runs/{run_id}/jobs` shows it (what the runner reports). */
export type JobRecord = {
  repo: string;
  id: number;
  runId: number;
  runAttempt: number;
  /** As GitHub shows it: a called workflow's job is "<caller job> / <job name>". */
  name: string;
  workflowName: string;
  headSha: string;
  headBranch: string;
  status: JobStatus;
  conclusion: JobConclusion | null;
  /** The labels `runs-on` asked for. */
  labels: string[];
  runnerId: number | null;
  runnerName: string | null;
  runnerGroupId: number | null;
  runnerGroupName: string | null;
  createdAt: number;
  startedAt: number;
  completedAt: number | null;
  steps: JobStepRecord[];
};

const jobsOf = new WeakMap<EmulatorState, JobRecord[]>();

/** Every job the runner reported, oldest first. */
export function listJobs(state: EmulatorState): JobRecord[] {
  let jobs = jobsOf.get(state);
  if (!jobs) {
    jobs = [];
    jobsOf.set(state, jobs);
  }
  return jobs;
}

/** A new queued job of `run` (the runner side records it when the job is created). */
export function recordJob(
  state: EmulatorState,
  run: RunRecord,
  input: { name: string; labels: string[]; now: number },
): JobRecord {
  const job: JobRecord = {
    repo: run.repo,
    id: takeId(state),
    runId: run.id,
    runAttempt: run.runAttempt,
    name: input.name,
    workflowName: run.name,
    headSha: run.headSha,
    headBranch: run.headBranch,
    status: "queued",
    conclusion: null,
    labels: input.labels,
    runnerId: null,
    runnerName: null,
    runnerGroupId: null,
    runnerGroupName: null,
    createdAt: input.now,
    startedAt: input.now,
    completedAt: null,
    steps: [],
  };
  listJobs(state).push(job);
  return job;
}

export function jobJson(ctx: JsonContext, job: JobRecord): Json {
  const api = `${ctx.url}/repos/${job.repo}`;
  return {
    id: job.id,
    run_id: job.runId,
    run_url: `${api}/actions/runs/${job.runId}`,
    run_attempt: job.runAttempt,
    node_id: `CR_${job.id}`,
    head_sha: job.headSha,
    url: `${api}/actions/jobs/${job.id}`,
    html_url: `${HTML}/${job.repo}/actions/runs/${job.runId}/job/${job.id}`,
    status: job.status,
    conclusion: job.conclusion,
    created_at: iso(job.createdAt),
    started_at: iso(job.startedAt),
    completed_at: job.completedAt === null ? null : iso(job.completedAt),
    name: job.name,
    steps: job.steps.map((step) => ({
      name: step.name,
      status: step.status,
      conclusion: step.conclusion,
      number: step.number,
      started_at: step.startedAt === null ? null : iso(step.startedAt),
      completed_at: step.completedAt === null ? null : iso(step.completedAt),
    })),
    check_run_url: `${api}/check-runs/${job.id}`,
    labels: job.labels,
    runner_id: job.runnerId,
    runner_name: job.runnerName,
    runner_group_id: job.runnerGroupId,
    runner_group_name: job.runnerGroupName,
    workflow_name: job.workflowName,
    head_branch: job.headBranch,
  };
}
