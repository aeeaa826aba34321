import { DEFAULT_SETTINGS } from "../../src/orchestrator/events.ts";
import type { OrchestratorEvent, PlanSpec, Settings } from "../../src/orchestrator/events.ts";
import type { Effect } from "../../src/orchestrator/effects.ts";
import type { PlanState, StageState } from "../../src/orchestrator/state.ts";
import type { SessionReport } from "../../src/orchestrator/session-report.ts";
import { step } from "../../src/orchestrator/step.ts";

export const BLOB_SHA = "b10b5ha0123456789abcdef0123456789abcdef0";
/** The effect key prefix of the story's plan: blob SHA and pull request number (7). */
export const KEY = `${BLOB_SHA.slice(0, 12)}-pr7-PLAN-demo`;

/** A plan from `[id, dependencies]` pairs. */
export function makePlan(stages: [string, string[]][], blobSha = BLOB_SHA): PlanSpec {
  return {
    id: "PLAN-demo",
    name: "Demo",
    path: "doc/plans/PLAN-demo.md",
    blobSha,
    stages: stages.map(([id, dependencies]) => ({
      id,
      name: `Stage ${id}`,
      dependencies,
      stageType: "standard",
    })),
  };
}

type EventInput = OrchestratorEvent extends infer E
  ? E extends { at: number }
    ? Omit<E, "at">
    : never
  : never;

/**
 * A plan driven event by event, the clock moving one second per event unless told otherwise.
 * Keeps the latest state and the effects of the latest step.
 */
export class Story {
  state: PlanState;
  effects: Effect[];
  at: number;

  constructor(
    plan: PlanSpec,
    options: {
      settings?: Partial<Settings>;
      trusted?: boolean;
      labels?: string[];
      at?: number;
      /** The pull request comes from this fork (`repo` null: deleted), from its branch `headRef`. */
      fork?: { repo: string | null; headRef: string };
    } = {},
  ) {
    this.at = options.at ?? 1_000_000;
    const result = step(null, {
      type: "plan.opened",
      at: this.at,
      plan,
      settings: { ...DEFAULT_SETTINGS, ...options.settings },
      pr: {
        number: 7,
        headRef: options.fork?.headRef ?? "feature/demo",
        headSha: "head0000000000000000000000000000000000001",
        baseRef: "main",
      },
      trusted: options.trusted ?? true,
      labels: options.labels ?? [],
      ...(options.fork ? { fork: { repo: options.fork.repo } } : {}),
    });
    this.state = result.state;
    this.effects = result.effects;
  }

  send(event: EventInput, advanceMs = 1000): Effect[] {
    this.at += advanceMs;
    const result = step(this.state, { ...event, at: this.at });
    this.state = result.state;
    this.effects = result.effects;
    return result.effects;
  }

  stage(id: string): StageState {
    const stage = this.state.stages[id];
    if (!stage) throw new Error(`no stage ${id}`);
    return stage;
  }

  /** Effects of the latest step of one type. */
  of<T extends Effect["type"]>(type: T): Extract<Effect, { type: T }>[] {
    return this.effects.filter((effect): effect is Extract<Effect, { type: T }> => effect.type === type);
  }

  /** Stage ids dispatched by the latest step, in order. */
  dispatched(): string[] {
    return this.of("dispatchRun").map((effect) => effect.stageId);
  }

  /** The latest session's attempt number of a stage. */
  attemptOf(id: string): number {
    const session = this.stage(id).sessions.at(-1);
    if (!session) throw new Error(`no session for ${id}`);
    return session.attempt;
  }

  /** The app reports the dispatch, the run starting and finishing with `outcome` (and `report`). */
  run(
    id: string,
    outcome: Extract<OrchestratorEvent, { type: "run.finished" }>["outcome"],
    detail = "",
    report?: SessionReport,
  ): Effect[] {
    const attempt = this.attemptOf(id);
    const runId = 1000 * attempt + id.length;
    this.send({ type: "run.dispatched", stageId: id, attempt, runId });
    this.send({ type: "run.started", stageId: id, attempt, runId });
    return this.send({
      type: "run.finished",
      stageId: id,
      attempt,
      runId,
      outcome,
      detail,
      ...(report === undefined ? {} : { report }),
    });
  }

  /**
   * Runs `ids` to completion one after another, each merged by loom as a new head ("1…1", "2…2",
   * …) made on the one before; returns the heads, the first being the head they started from.
   */
  mergeInTurn(ids: readonly string[]): string[] {
    const heads = [this.state.pr.headSha, ...ids.map((_, i) => String(i + 1).repeat(40))];
    for (const [i, id] of ids.entries()) {
      this.run(id, "completed");
      this.send({
        type: "merge.finished",
        stageId: id,
        outcome: "merged",
        sha: heads[i + 1] ?? "",
        parent: heads[i] ?? "",
        detail: "",
      });
    }
    return heads;
  }

  merge(
    id: string,
    outcome: Extract<OrchestratorEvent, { type: "merge.finished" }>["outcome"] = "merged",
  ): Effect[] {
    return this.send({
      type: "merge.finished",
      stageId: id,
      outcome,
      sha: "merge000000000000000000000000000000000001",
      detail: "",
    });
  }

  /** A stage run that completes (reporting `report`, e.g. its cost) and merges cleanly. */
  pass(id: string, report?: SessionReport): Effect[] {
    this.run(id, "completed", "", report);
    return this.merge(id);
  }

  command(
    command: Extract<OrchestratorEvent, { type: "command.received" }>["command"],
    stageId?: string,
    sha?: string,
  ): Effect[] {
    return this.send({
      type: "command.received",
      command,
      ...(stageId === undefined ? {} : { stageId }),
      ...(sha === undefined ? {} : { sha }),
      sender: "octocat",
      source: { kind: "comment", commentId: 42 },
    });
  }
}
