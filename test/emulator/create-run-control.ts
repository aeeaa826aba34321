import type { Core } from "./create-core.ts";
import type { RepoRecord, RunRecord } from "./emulator-state.ts";
import { takeId } from "./emulator-state.ts";
import { runJson } from "./github-json.ts";
import { endJobTokensOfRun } from "./caller-of.ts";
import type { Workflow } from "./read-workflow.ts";

export type RunConclusion =
  | "success"
  | "failure"
  | "cancelled"
  | "timed_out"
  | "skipped"
  | "neutral"
  | "action_required"
  | "startup_failure";

/**
 * The runner side of the emulator: whoever plays GitHub Actions. `dispatched` is called (not
 * awaited) for every new run; it drives the run with `RunControl.start/complete` and adds artifacts.
 * `cancelRequested` is called on `POST …/cancel`; without it the run is cancelled at once.
 */
export type Runner = {
  dispatched(run: RunRecord): void | Promise<void>;
  cancelRequested?(run: RunRecord): void | Promise<void>;
};

export type RunControl = ReturnType<typeof createRunControl>;

export function createRunControl(core: Core, runnerErrors: Error[]) {
  let runner: Runner | null = null;
  const pending = new Set<Promise<void>>();

  function track(work: () => void | Promise<void>, what: string): void {
    const promise = (async () => {
      try {
        await work();
      } catch (error) {
        runnerErrors.push(new Error(`the runner failed ${what}`, { cause: error }));
      }
    })();
    pending.add(promise);
    void promise.finally(() => pending.delete(promise));
  }

  function repoOf(run: RunRecord): RepoRecord {
    return core.requireRepo(run.repo);
  }

  function emit(run: RunRecord, action: "requested" | "in_progress" | "completed"): void {
    const repo = repoOf(run);
    core.emit(repo, "workflow_run", action, run.actor, {
      workflow_run: runJson(core.json, repo, run),
      workflow: { id: run.workflowId, name: run.name, path: run.workflowPath, state: "active" },
    });
  }

  type NewRun = Pick<
    RunRecord,
    | "workflowId"
    | "workflowPath"
    | "name"
    | "displayTitle"
    | "event"
    | "headBranch"
    | "headSha"
    | "inputs"
    | "actor"
  >;

  /** A new queued run of `repo`, recorded and announced with `workflow_run.requested`. */
  function recordRun(repo: RepoRecord, fields: NewRun): RunRecord {
    const at = core.now();
    const run: RunRecord = {
      repo: repo.fullName,
      id: takeId(core.state),
      ...fields,
      status: "queued",
      conclusion: null,
      cancelRequested: false,
      runAttempt: 1,
      createdAt: at,
      updatedAt: at,
      startedAt: at,
    };
    core.state.runs.push(run);
    emit(run, "requested");
    return run;
  }

  function find(id: number): RunRecord {
    const run = core.state.runs.find((r) => r.id === id);
    if (!run) throw new Error(`the emulator has no workflow run ${id}`);
    return run;
  }

  const control = {
    setRunner(next: Runner | null): void {
      runner = next;
    },
    find,
    /** Creates a queued run, fires `workflow_run.requested` and hands it to the runner. */
    create(
      repo: RepoRecord,
      workflow: Workflow,
      workflowId: number,
      input: {
        ref: string;
        headSha: string;
        inputs: Record<string, string>;
        actor: string;
        displayTitle: string;
      },
    ): RunRecord {
      const run = recordRun(repo, {
        workflowId,
        workflowPath: workflow.path,
        name: workflow.name,
        displayTitle: input.displayTitle,
        event: "workflow_dispatch",
        headBranch: input.ref,
        headSha: input.headSha,
        inputs: input.inputs,
        actor: input.actor,
      });
      const current = runner;
      if (current) track(() => current.dispatched(run), `on run ${run.id}`);
      return run;
    },
    /**
     * A run nobody dispatched through the API: someone's own workflow (any file, event, actor and
     * run name, e.g. a `push` run titled `loom <key>`). It fires `workflow_run.requested` like any
     * run but is NOT handed to the runner: the test drives it (`start`, `addArtifact`, `complete`).
     */
    createOther(
      repo: RepoRecord,
      input: {
        workflowPath: string;
        name: string;
        event: RunRecord["event"];
        headBranch: string;
        headSha: string;
        actor: string;
        displayTitle: string;
        inputs?: Record<string, string>;
      },
    ): RunRecord {
      let workflowId = repo.workflows.get(input.workflowPath);
      if (workflowId === undefined) {
        workflowId = takeId(core.state);
        repo.workflows.set(input.workflowPath, workflowId);
      }
      const run = recordRun(repo, {
        workflowId,
        workflowPath: input.workflowPath,
        name: input.name,
        displayTitle: input.displayTitle,
        event: input.event,
        headBranch: input.headBranch,
        headSha: input.headSha,
        inputs: input.inputs ?? {},
        actor: input.actor,
      });
      return run;
    },
    /** queued → in_progress, firing `workflow_run.in_progress`. */
    start(id: number): RunRecord {
      const run = find(id);
      if (run.status !== "queued") return run;
      run.status = "in_progress";
      run.startedAt = core.now();
      run.updatedAt = run.startedAt;
      emit(run, "in_progress");
      return run;
    },
    /** → completed with `conclusion`, firing `workflow_run.completed` (once); its jobs' tokens end. */
    complete(id: number, conclusion: RunConclusion): RunRecord {
      const run = find(id);
      if (run.status === "completed") return run;
      endJobTokensOfRun(core, run.id);
      run.status = "completed";
      run.conclusion = conclusion;
      run.updatedAt = core.now();
      emit(run, "completed");
      return run;
    },
    /** What `POST …/cancel` does: marks the run and tells the runner, or cancels it at once. */
    requestCancel(run: RunRecord): void {
      run.cancelRequested = true;
      const current = runner;
      if (current?.cancelRequested) track(() => current.cancelRequested?.(run), `cancelling run ${run.id}`);
      else control.complete(run.id, "cancelled");
    },
    /** Resolves when every runner callback started so far has returned. */
    async settle(): Promise<void> {
      for (let round = 0; round < 100 && pending.size > 0; round++) await Promise.all([...pending]);
    },
  };
  return control;
}
