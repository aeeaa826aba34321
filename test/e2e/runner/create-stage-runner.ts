import { mkdir } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { RunConclusion, Runner } from "../../emulator/create-run-control.ts";
import type { RunRecord } from "../../emulator/emulator-state.ts";
import type { Emulator } from "../../emulator/start-emulator.ts";
import {
  startFakeModelServer,
  type FakeModelServerOptions,
  type RecordedRequest,
} from "../../support/fake-model-server.ts";
import { checkout, stageCheckoutRef } from "./git-clone.ts";
import { readJobPermissions } from "./job-permissions.ts";
import {
  buildActionEnv,
  readOutputs,
  startAction,
  defaultActionEntry,
  type ActionEntry,
  type ActionExit,
  type RunningAction,
} from "./run-action.ts";

/** How long a crashing run lives (a runner is picked up and lost), so its dispatch is recorded first. */
const CRASH_AFTER_MS = 2_000;

/** One dispatched stage run as the model script sees it. */
export type StageJob = {
  runId: number;
  /** The dispatch inputs (key, plan_id, stage_id, attempt, kind, branch, base, previous_run_id). */
  inputs: Record<string, string>;
  stageId: string;
  kind: string;
  attempt: number;
  /** The run job's checkout: absolute paths for Write/Read tool calls live under it. */
  workspace: string;
};

/** The scripted model of one session: turns for Claude Code, or a whole fake-server setup. */
export type ModelScript = (job: StageJob) => FakeModelServerOptions | Promise<FakeModelServerOptions>;

export type RunnerEvent =
  | { type: "run.started"; runId: number; job: StageJob }
  | {
      type: "job.finished";
      runId: number;
      job: "run" | "publish";
      exit: ActionExit;
      outputs: Record<string, string>;
      /** The run job's scripted model: every request Claude Code sent it (the prompt is in the first main one). */
      modelRequests?: RecordedRequest[];
    }
  | { type: "run.completed"; runId: number; stageId: string; conclusion: RunConclusion };

export type StageRunnerOptions = {
  emulator: Emulator;
  /** Scratch space for workspaces and job folders. */
  workDir: string;
  script: ModelScript;
  entry?: ActionEntry;
  /** Per job (the action's process is killed after it). Default 120 s. */
  jobTimeoutMs?: number;
  /** Extra `with:` inputs of the run job (claude_path, timeouts…). */
  runInputs?: Record<string, string>;
  onEvent?: (event: RunnerEvent) => void;
  /**
   * A scripted infrastructure fault for a run: `crash` = the runner dies before the action starts
   * (the run concludes `failure` with no artifacts, as when a hosted runner is lost);
   * `crash-at-once` = the same with no delay, so the run may finish before the app has recorded
   * its dispatch.
   */
  fault?: (job: StageJob) => "crash" | "crash-at-once" | null;
};

export type StageRunner = Runner & {
  /** Logs of every job, by run id ("run" / "publish"), for failure messages. */
  logs: Map<number, Record<string, string>>;
  /** Kills every action still running. */
  stopAll(): void;
};

/**
 * Plays GitHub Actions for the stage workflow (examples/loom.yml → loom-stage.yml): for each
 * dispatched run, mark it in progress, run job `run` (checkout of `stageCheckoutRef`, the real action
 * in `mode: run` against a scripted model), then job `publish` (a fresh checkout, `mode: publish`),
 * then complete the run — each step firing the `workflow_run` webhooks GitHub fires. Clones and
 * pushes go over the emulator's git smart HTTP with the job token; artifacts go through the
 * emulator's results service with the job's runtime token (both from `emulator.runnerEnv`).
 */
export function createStageRunner(options: StageRunnerOptions): StageRunner {
  const { emulator } = options;
  const active = new Map<number, { action: RunningAction | null; cancelled: boolean }>();
  const logs = new Map<number, Record<string, string>>();
  const timeoutMs = options.jobTimeoutMs ?? 120_000;

  async function runJob(
    run: RunRecord,
    name: "run" | "publish",
    withInputs: Record<string, string>,
    env: Record<string, string>,
    modelRequests?: RecordedRequest[],
  ): Promise<{ exit: ActionExit; outputs: Record<string, string> }> {
    const jobDir = path.join(options.workDir, `run-${run.id}`, name);
    const workspace = path.join(jobDir, "workspace");
    await mkdir(jobDir, { recursive: true });
    const runner = emulator.runnerEnv(run.id, await readJobPermissions(emulator, run, name));
    await checkout({
      cloneUrl: emulator.cloneUrl(run.repo),
      branch: stageCheckoutRef(run.inputs),
      into: workspace,
      token: runner["GITHUB_TOKEN"] ?? "",
      // run: `persist-credentials: false`; publish keeps them to push.
      persistCredentials: name === "publish",
    });
    const actionEnv = await buildActionEnv({
      runner,
      with: withInputs,
      workspace,
      jobDir,
      jobName: name,
      env,
    });
    const state = active.get(run.id);
    if (state?.cancelled) {
      // GitHub starts no step of a job cancelled before it got there.
      return {
        exit: { code: null, signal: null, log: "cancelled before the step started", timedOut: false },
        outputs: {},
      };
    }
    const action = startAction(options.entry ?? defaultActionEntry(), actionEnv, workspace, timeoutMs);
    if (state) state.action = action;
    const exit = await action.done;
    if (state) state.action = null;
    const outputs = await readOutputs(actionEnv["GITHUB_OUTPUT"] ?? "");
    logs.set(run.id, { ...logs.get(run.id), [name]: exit.log });
    options.onEvent?.({
      type: "job.finished",
      runId: run.id,
      job: name,
      exit,
      outputs,
      ...(modelRequests ? { modelRequests } : {}),
    });
    return { exit, outputs };
  }

  async function dispatched(run: RunRecord): Promise<void> {
    const state = { action: null, cancelled: false };
    active.set(run.id, state);
    try {
      emulator.runs.start(run.id);
      const job: StageJob = {
        runId: run.id,
        inputs: run.inputs,
        stageId: run.inputs["stage_id"] ?? "",
        kind: run.inputs["kind"] ?? "stage",
        attempt: Number(run.inputs["attempt"] ?? "1"),
        workspace: path.join(options.workDir, `run-${run.id}`, "run", "workspace"),
      };
      options.onEvent?.({ type: "run.started", runId: run.id, job });
      const fault = options.fault?.(job) ?? null;
      if (fault !== null) {
        if (fault === "crash") await sleep(CRASH_AFTER_MS);
        emulator.runs.complete(run.id, "failure");
        options.onEvent?.({
          type: "run.completed",
          runId: run.id,
          stageId: job.stageId,
          conclusion: "failure",
        });
        return;
      }
      const model = await startFakeModelServer(await options.script(job));
      const identity = {
        GIT_AUTHOR_NAME: "agent",
        GIT_AUTHOR_EMAIL: "agent@example.invalid",
        GIT_COMMITTER_NAME: "agent",
        GIT_COMMITTER_EMAIL: "agent@example.invalid",
      };
      const request = { ...run.inputs };
      let conclusion: RunConclusion = "success";
      try {
        const ran = await runJob(
          run,
          "run",
          { ...request, mode: "run", ...options.runInputs },
          {
            ANTHROPIC_API_KEY: "sk-ant-e2e-not-a-key",
            ANTHROPIC_BASE_URL: model.url,
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
            DISABLE_TELEMETRY: "1",
            DISABLE_AUTOUPDATER: "1",
            ...identity,
          },
          model.requests,
        );
        if (ran.exit.code !== 0) conclusion = "failure";
      } finally {
        await model.close();
      }
      // publish: `if: !cancelled()`, no model, no key.
      if (!state.cancelled) {
        const published = await runJob(run, "publish", { ...request, mode: "publish" }, identity);
        if (published.exit.code !== 0) conclusion = "failure";
      }
      if (state.cancelled) conclusion = "cancelled";
      emulator.runs.complete(run.id, conclusion);
      options.onEvent?.({ type: "run.completed", runId: run.id, stageId: job.stageId, conclusion });
    } finally {
      active.delete(run.id);
    }
  }

  return {
    logs,
    dispatched,
    cancelRequested(run) {
      const state = active.get(run.id);
      if (!state) {
        emulator.runs.complete(run.id, "cancelled");
        return;
      }
      state.cancelled = true;
      state.action?.cancel();
    },
    stopAll() {
      for (const state of active.values()) {
        state.cancelled = true;
        state.action?.kill();
      }
    },
  };
}
