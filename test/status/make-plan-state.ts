import { createStageState } from "../../src/orchestrator/apply-plan.ts";
import { DEFAULT_SETTINGS } from "../../src/orchestrator/events.ts";
import type { Heartbeat } from "../../src/orchestrator/events.ts";
import type { SessionReport } from "../../src/orchestrator/session-report.ts";
import type { PlanState, Session, StageState } from "../../src/orchestrator/state.ts";
import type { StageStatus } from "../../src/stage/stage-status.ts";

export const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);
export const HEAD_SHA = "a".repeat(40);

export type StageInput = Partial<Omit<StageState, "id">> & { id: string; status?: StageStatus };

export function makeSession(overrides: Partial<Session> = {}): Session {
  return {
    attempt: 1,
    kind: "stage",
    status: "running",
    runId: 1001,
    dispatchedAt: T0,
    startedAt: T0 + 10_000,
    finishedAt: null,
    outcome: null,
    lastHeartbeat: null,
    lastSeenAt: T0 + 10_000,
    detail: null,
    ...overrides,
  };
}

export function makeHeartbeat(overrides: Partial<Heartbeat> = {}): Heartbeat {
  return {
    timestamp: T0 + 60_000,
    contextPercent: 42,
    lastTool: "Bash",
    activity: "npm test",
    turns: 7,
    costUsd: 0.5,
    ...overrides,
  };
}

function makeStage(input: StageInput): StageState {
  return {
    ...createStageState({ id: input.id, name: input.id, dependencies: [], stageType: "standard" }),
    ...input,
  };
}

/** A plan state with the given stages (plan order), trusted, at `T0 + 5 min`. */
export function makePlanState(stages: StageInput[], overrides: Partial<PlanState> = {}): PlanState {
  const built = stages.map(makeStage);
  return {
    plan: {
      id: "PLAN-demo",
      name: "Demo plan",
      path: "doc/plans/PLAN-demo.md",
      blobSha: "b".repeat(40),
      stages: built.map((s) => ({
        id: s.id,
        name: s.name,
        dependencies: s.dependencies,
        stageType: s.stageType,
      })),
    },
    settings: DEFAULT_SETTINGS,
    pr: { number: 7, headRef: "feature/demo", headSha: HEAD_SHA, baseRef: "main" },
    trusted: true,
    approvedSha: null,
    hold: false,
    closed: false,
    labels: [],
    stages: Object.fromEntries(built.map((s) => [s.id, s])),
    order: built.map((s) => s.id),
    rejected: [],
    updatedAt: T0 + 300_000,
    ...overrides,
  };
}

/** The diamond a → (b, c) → d. */
export function makeDiamond(
  statuses: Partial<Record<"a" | "b" | "c" | "d", Omit<StageInput, "id">>> = {},
): PlanState {
  return makePlanState([
    { id: "a", ...statuses.a },
    { id: "b", dependencies: ["a"], ...statuses.b },
    { id: "c", dependencies: ["a"], ...statuses.c },
    { id: "d", dependencies: ["b", "c"], ...statuses.d },
  ]);
}

/** A session report with round numbers: 1.2k in, 3.4k out, 50k cache read, 8k cache write, 95 s. */
export function makeReport(
  overrides: Partial<SessionReport> & { cost?: number; turns?: number; model?: string } = {},
): SessionReport {
  const { cost = 0.1, turns = 5, model, ...rest } = overrides;
  return {
    usage: {
      ...(model === undefined ? {} : { model }),
      turns,
      inputTokens: 1200,
      outputTokens: 3400,
      cacheReadTokens: 50_000,
      cacheCreationTokens: 8000,
      costUsd: cost,
      durationMs: 95_000,
    },
    checks: [],
    deviations: [],
    learningsAdded: 0,
    ...rest,
  };
}
