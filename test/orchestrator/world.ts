import { DEFAULT_SETTINGS } from "../../src/orchestrator/events.ts";
import type { OrchestratorEvent, PlanSpec, RunOutcome } from "../../src/orchestrator/events.ts";
import type { Effect } from "../../src/orchestrator/effects.ts";
import type { PlanState } from "../../src/orchestrator/state.ts";
import { step } from "../../src/orchestrator/step.ts";
import { costReport } from "./cost-report.ts";

/** A small deterministic random source (mulberry32), seeded by fast-check. */
export function createRandom(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n: number) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const r = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    return Math.floor(r * n);
  };
}

type Run = {
  stageId: string;
  attempt: number;
  runId: number;
  phase: "requested" | "dispatched" | "started";
  cancel: boolean;
};

/**
 * A simulated GitHub: it takes the reducer's effects and later answers them with plausible
 * events, in a random order. A cooperative world lets every run complete and every merge land;
 * an unruly one crashes, hangs, conflicts, refuses merges, and has people sending commands and
 * labels at random.
 */
export class World {
  state: PlanState;
  at = 1_000_000;
  runs: Run[] = [];
  merges: string[] = [];
  nextRunId = 1;
  readonly random: (n: number) => number;
  readonly cooperative: boolean;
  /** Called after every step with the states before and after and the effects. */
  readonly onStep: (before: PlanState, after: PlanState, effects: Effect[], event: OrchestratorEvent) => void;

  constructor(
    plan: PlanSpec,
    options: {
      seed: number;
      cooperative: boolean;
      maxParallel: number;
      onStep: World["onStep"];
    },
  ) {
    this.random = createRandom(options.seed);
    this.cooperative = options.cooperative;
    this.onStep = options.onStep;
    const result = step(null, {
      type: "plan.opened",
      at: this.at,
      plan,
      settings: { ...DEFAULT_SETTINGS, maxParallel: options.maxParallel },
      pr: { number: 1, headRef: "feature", headSha: "h0", baseRef: "main" },
      trusted: true,
      labels: [],
    });
    this.state = result.state;
    this.absorb(result.effects);
  }

  /** True when nothing is left for the world to answer. */
  isQuiet(): boolean {
    return this.runs.length === 0 && this.merges.length === 0;
  }

  send(event: OrchestratorEvent): void {
    const before = this.state;
    const result = step(before, event);
    this.state = result.state;
    this.onStep(before, result.state, result.effects, event);
    this.absorb(result.effects);
  }

  private absorb(effects: Effect[]): void {
    for (const effect of effects) {
      if (effect.type === "dispatchRun") {
        this.runs.push({
          stageId: effect.stageId,
          attempt: effect.attempt,
          runId: 0,
          phase: "requested",
          cancel: false,
        });
      } else if (effect.type === "cancelRun") {
        const run = this.runs.find((r) => r.runId === effect.runId);
        if (run) run.cancel = true;
      } else if (effect.type === "mergeBranch") {
        this.merges.push(effect.stageId);
      }
    }
  }

  private pick<T>(items: readonly T[]): T {
    return items[this.random(items.length)]!;
  }

  /** One thing happens in the world. */
  act(): void {
    const jump = this.random(25) === 0 ? 301_000 : this.pick([1000, 1000, 1000, 1000, 5000, 31_000, 61_000]);
    this.at += this.cooperative ? 1000 : jump;
    const choice = this.random(this.cooperative ? 18 : 21);
    if (choice < 10 && this.runs.length > 0) return this.advanceRun(this.pick(this.runs));
    if (choice < 15 && this.merges.length > 0) return this.answerMerge();
    if (choice >= 18) return this.meddle(choice === 20);
    this.send({ type: "tick", at: this.at });
  }

  private advanceRun(run: Run): void {
    const base = { at: this.at, stageId: run.stageId, attempt: run.attempt };
    if (run.phase === "requested") {
      run.runId = this.nextRunId++;
      run.phase = "dispatched";
      return this.send({ ...base, type: "run.dispatched", runId: run.runId });
    }
    if (run.phase === "dispatched" && !run.cancel) {
      run.phase = "started";
      return this.send({ ...base, type: "run.started", runId: run.runId });
    }
    if (!run.cancel && this.random(3) === 0) {
      const heartbeat = {
        timestamp: this.at,
        contextPercent: 5,
        lastTool: null,
        activity: null,
        turns: 1,
        costUsd: 0,
      };
      return this.send({ ...base, type: "heartbeat.seen", heartbeat });
    }
    this.runs = this.runs.filter((r) => r !== run);
    const outcomes: RunOutcome[] = [
      "completed",
      "completed",
      "completed-with-failures",
      "needs-handoff",
      "crashed",
      "hung",
      "timed-out",
    ];
    const outcome: RunOutcome = run.cancel
      ? "cancelled"
      : this.cooperative
        ? "completed"
        : this.pick(outcomes);
    // The commit its checks ran on, as the publish job reports it (what a merge takes, by SHA).
    const headSha = String(run.runId).padStart(40, "c");
    // Now and then a failed session disputes its first criterion (the stage waits for a person).
    const disputes = outcome === "completed-with-failures" && this.random(2) === 0;
    const report = disputes
      ? {
          ...costReport(0),
          dispute: { criterionIndex: 0, criterion: "npm test", reason: "needs a database" },
        }
      : undefined;
    this.send({
      ...base,
      type: "run.finished",
      runId: run.runId,
      outcome,
      detail: "",
      headSha,
      ...(report === undefined ? {} : { report }),
    });
  }

  private answerMerge(): void {
    const index = this.random(this.merges.length);
    const stageId = this.merges[index]!;
    this.merges.splice(index, 1);
    const outcome = this.cooperative
      ? "merged"
      : this.pick(["merged", "merged", "nothing-to-merge", "conflict", "error"] as const);
    this.send({ type: "merge.finished", at: this.at, stageId, outcome, detail: "" });
  }

  /** People: commands and labels at random. */
  private meddle(withLabels: boolean): void {
    const stageId = this.pick(this.state.order);
    if (!withLabels) {
      const command = this.pick([
        "retry",
        "retry",
        "unblock",
        "unblock",
        "block",
        "cancel",
        "status",
        "skip",
        "merge",
        "continue",
        "amend",
        "reject",
      ] as const);
      return this.send({
        type: "command.received",
        at: this.at,
        command,
        stageId,
        ...(command === "continue" ? { instructions: "also handle the empty case" } : {}),
        ...(command === "amend" ? { criterion: 1, amendedCommand: "true", writtenAt: this.at } : {}),
        sender: "someone",
        source: { kind: "comment", commentId: this.random(1000) },
      });
    }
    const labels = this.state.order.flatMap((id) => {
      const r = this.random(4 * this.state.order.length);
      return r === 0 ? [`loom:skip:${id}`] : r <= 2 ? [`loom:block:${id}`] : [];
    });
    if (this.random(4) === 0) labels.push("loom:hold");
    this.send({ type: "labels.changed", at: this.at, labels });
  }
}
