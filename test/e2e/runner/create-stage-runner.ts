import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { RunConclusion, Runner } from "../../emulator/create-run-control.ts";
import type { RunRecord } from "../../emulator/emulator-state.ts";
import type { Emulator } from "../../emulator/start-emulator.ts";
import { providerBaseUrl, vertexFederation, type FakeProvider } from "../../support/fake-model-providers.ts";
import {
  startFakeModelServer,
  type FakeModelServerOptions,
  type RecordedRequest,
} from "../../support/fake-model-server.ts";
import { createWorkflowExecutor } from "../../workflows/executor/create-workflow-executor.ts";
import type { LoomSource } from "../../workflows/executor/resolve-uses.ts";
import { jobDir, type JobReport } from "../../workflows/executor/run-context.ts";
import type { RunnerSpec } from "../../workflows/executor/runs-on.ts";
import type { CloudCredentials } from "../../workflows/executor/stand-ins/stand-ins.ts";
import type { StepExit } from "../../workflows/executor/step-process.ts";

/** How long a crashing run lives (a runner is picked up and lost), so its dispatch is recorded first. */
const CRASH_AFTER_MS = 2_000;
const ROOT = path.resolve(import.meta.dirname, "../../..");

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

/** How loom's action step of a job ended, with the job's whole (masked) log. */
export type ActionExit = { code: number | null; signal: string | null; log: string; timedOut: boolean };

export type RunnerEvent =
  | { type: "run.started"; runId: number; job: StageJob }
  | {
      type: "job.finished";
      runId: number;
      /** The job's id in the stage workflow (`run`, `publish`). */
      job: string;
      exit: ActionExit;
      /** The outputs of the job's loom action step (outcome, result_path, published, …). */
      outputs: Record<string, string>;
      /** The run job's scripted model: every request Claude Code sent it (the prompt is in the first main one). */
      modelRequests?: RecordedRequest[];
    }
  | {
      type: "run.completed";
      runId: number;
      stageId: string;
      conclusion: RunConclusion;
      /** What the caller's job got from the stage workflow it called (`needs.stage.outputs`: outcome, cost-usd, turns). */
      outputs: Record<string, string>;
    };

export type StageRunnerOptions = {
  emulator: Emulator;
  /** Scratch space for workspaces and job folders. */
  workDir: string;
  script: ModelScript;
  /** working-tree mode: the action's committed bundle (default) or its TypeScript entry. */
  entry?: "src" | "dist";
  /**
   * Where `loom-dev/loom/…@<sha>` comes from: this checkout (`working-tree`, the default: the e2e
   * tests of the current tree) or this repository's history at the pinned SHA (`pinned`: the README
   * caller's test, which runs the release a user's copy pins).
   */
  source?: LoomSource["mode"];
  /** A test's guard per step (the workflow's own `timeout-minutes` apply too). Default 120 s. */
  jobTimeoutMs?: number;
  /** Self-hosted or ARC runners besides GitHub-hosted ones. */
  runners?: RunnerSpec[];
  /**
   * A run whose model is a cloud provider (the caller calls loom-stage-oidc.yml): its scripted
   * model answers as that provider's endpoint, and the cloud-login stand-ins hand out the
   * credentials it accepts. `through`: `runner-env`, the runner machine points Claude Code at it
   * (ANTHROPIC_BEDROCK_BASE_URL / ANTHROPIC_VERTEX_BASE_URL instead of ANTHROPIC_BASE_URL);
   * `caller`, the caller workflow's input names an endpoint (a gateway the test runs in front of
   * it, see `onModelServer`).
   */
  provider?: (job: StageJob) => { endpoint: FakeProvider; through: "runner-env" | "caller" } | null;
  /** A run's scripted model is listening at `url`, before its workflow starts. */
  onModelServer?: (job: StageJob, url: string) => void;
  onEvent?: (event: RunnerEvent) => void;
  /**
   * A scripted infrastructure fault for a run: `crash` = the runner dies before the workflow starts
   * (the run concludes `failure` with no artifacts, as when a hosted runner is lost);
   * `crash-at-once` = the same with no delay, so the run may finish before the app has recorded
   * its dispatch.
   */
  fault?: (job: StageJob) => "crash" | "crash-at-once" | null;
};

export type StageRunner = Runner & {
  /** Logs of every job that ran, by run id and job id ("run" / "publish"), for failure messages. */
  logs: Map<number, Record<string, string>>;
  /** Why GitHub would have refused a run at startup, by run id. */
  startupFailures: Map<number, string>;
  /** Kills every step still running. */
  stopAll(): void;
};

/** The last `lines` lines of each job's log of run `runId`, without `::debug::` lines: for failure messages. */
export function describeRunLogs(runner: StageRunner, runId: number, lines = 15): string {
  return Object.entries(runner.logs.get(runId) ?? {})
    .map(
      ([job, log]) =>
        `[${job}] ${log
          .split("\n")
          .filter((line) => !line.startsWith("::debug::"))
          .slice(-lines)
          .join("\n  ")}`,
    )
    .join("\n");
}

/** The repository's Actions secret the caller passes on (examples/loom.yml: ANTHROPIC_API_KEY). */
export const E2E_MODEL_KEY = "sk-ant-e2e-not-a-key";

/**
 * GitHub Actions for the tests: every dispatched run executes the caller workflow from the default
 * branch (examples/loom.yml, calling loom-stage.yml) with the workflow executor — GitHub's parser and
 * expression engine, jobs in `needs` order, the real action in node, checkout over the emulator's git
 * — against a scripted model reached through the runner machine's ANTHROPIC_BASE_URL.
 */
export function createStageRunner(options: StageRunnerOptions): StageRunner {
  const { emulator } = options;
  const logs = new Map<number, Record<string, string>>();
  const lost = new Set<number>();
  const models = new Map<number, RecordedRequest[]>();
  const calledOutputs = new Map<number, Record<string, string>>();
  const executor = createWorkflowExecutor({
    emulator,
    workDir: options.workDir,
    source: {
      repository: "loom-dev/loom",
      mode: options.source ?? "working-tree",
      root: ROOT,
      entry: options.entry ?? defaultActionEntry(),
    },
    secrets: { ANTHROPIC_API_KEY: E2E_MODEL_KEY },
    runners: options.runners ?? [],
    stepTimeoutCapMs: options.jobTimeoutMs ?? 120_000,
    onJob: (report) => reportJob(report),
  });

  function reportJob(report: JobReport): void {
    if (report.calls !== undefined) {
      calledOutputs.set(report.runId, report.outputs);
      return;
    }
    if (report.conclusion === "skipped") return;
    logs.set(report.runId, { ...logs.get(report.runId), [report.id]: report.log });
    const step = report.steps.findLast(
      (s) => (s.uses ?? "").startsWith("loom-dev/loom/action@") && s.exit !== null,
    );
    const exit: StepExit | null = step?.exit ?? null;
    const requests = report.id === "run" ? models.get(report.runId) : undefined;
    options.onEvent?.({
      type: "job.finished",
      runId: report.runId,
      job: report.id,
      exit: {
        code: exit?.code ?? null,
        signal: exit?.signal ?? null,
        log: report.log,
        timedOut: exit?.timedOut ?? false,
      },
      outputs: step?.outputs ?? {},
      ...(requests ? { modelRequests: requests } : {}),
    });
  }

  async function dispatched(run: RunRecord): Promise<void> {
    const job: StageJob = {
      runId: run.id,
      inputs: run.inputs,
      stageId: run.inputs["stage_id"] ?? "",
      kind: run.inputs["kind"] ?? "stage",
      attempt: Number(run.inputs["attempt"] ?? "1"),
      workspace: path.join(jobDir(options.workDir, run.id, "run"), "workspace"),
    };
    options.onEvent?.({ type: "run.started", runId: run.id, job });
    const fault = options.fault?.(job) ?? null;
    if (fault !== null) {
      lost.add(run.id);
      emulator.runs.start(run.id);
      if (fault === "crash") await sleep(CRASH_AFTER_MS);
      emulator.runs.complete(run.id, "failure");
      options.onEvent?.({
        type: "run.completed",
        runId: run.id,
        stageId: job.stageId,
        conclusion: "failure",
        outputs: {},
      });
      return;
    }
    const cloud = options.provider?.(job) ?? null;
    const provider = cloud?.endpoint ?? null;
    const model = await startFakeModelServer({
      ...(await options.script(job)),
      ...(provider ? { provider } : {}),
    });
    options.onModelServer?.(job, model.url);
    models.set(run.id, model.requests);
    let conclusion: RunConclusion;
    try {
      conclusion = await executor.execute(
        run,
        {
          ...(provider === null
            ? { ANTHROPIC_BASE_URL: model.url }
            : cloud?.through === "runner-env"
              ? providerBaseUrl(provider, model.url)
              : {}),
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
          DISABLE_TELEMETRY: "1",
          DISABLE_AUTOUPDATER: "1",
          GIT_AUTHOR_NAME: "agent",
          GIT_AUTHOR_EMAIL: "agent@example.invalid",
          GIT_COMMITTER_NAME: "agent",
          GIT_COMMITTER_EMAIL: "agent@example.invalid",
        },
        provider ? cloudLogin(provider, model.url) : undefined,
      );
    } finally {
      await model.close();
    }
    options.onEvent?.({
      type: "run.completed",
      runId: run.id,
      stageId: job.stageId,
      conclusion,
      outputs: calledOutputs.get(run.id) ?? {},
    });
  }

  return {
    logs,
    startupFailures: executor.startupFailures,
    dispatched,
    cancelRequested(run) {
      // A lost runner hears no cancel: its run fails on its own.
      if (lost.has(run.id)) return;
      if (!executor.cancel(run.id)) emulator.runs.complete(run.id, "cancelled");
    },
    stopAll() {
      executor.killAll();
    },
  };
}

/** What the cloud-login stand-ins hand the job for `provider`'s scripted endpoint at `serverUrl`. */
function cloudLogin(provider: FakeProvider, serverUrl: string): CloudCredentials {
  if (provider.kind === "bedrock") {
    const { accessKeyId, secretAccessKey, sessionToken } = provider;
    return { aws: { accessKeyId, secretAccessKey, sessionToken } };
  }
  const { idTokenRequestUrl, stsUrl, iamCredentialsUrl } = vertexFederation(serverUrl);
  return {
    idToken: { requestUrl: idTokenRequestUrl, requestToken: provider.idTokenRequestToken },
    google: { federation: { stsUrl, iamCredentialsUrl } },
  };
}

/**
 * The action e2e runs start by default: the committed bundle, as a caller's workflow runs it
 * (`test/action/dist-fresh.test.ts` fails when it is not what the sources build to). Loading the
 * sources costs each job about a second of CPU more (hundreds of modules, types stripped) and each
 * Claude Code hook the same (`hooks/*.ts` instead of `dist/hooks/*.js`): minutes of the suite.
 * `LOOM_E2E_ENTRY=src` runs the sources, while working on them without rebuilding.
 */
export function defaultActionEntry(env: NodeJS.ProcessEnv = process.env): "src" | "dist" {
  return env["LOOM_E2E_ENTRY"] === "src" ? "src" : "dist";
}
