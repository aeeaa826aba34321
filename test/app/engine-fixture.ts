import pino from "pino";
import { ProbotOctokit } from "probot";
import type { EngineDeps } from "../../app/engine/engine-deps.ts";
import type { PlanKey, Store, TimerInput } from "../../app/store/store.ts";
import type { PlanState } from "../../src/orchestrator/state.ts";
import { REPO_SETTINGS } from "./stored-plan-fixture.ts";

/** An Octokit as the App builds one, without retries or throttling (the tests count every request). */
const TestOctokit = ProbotOctokit.defaults({ retry: { enabled: false }, throttle: { enabled: false } });

export type StoredPlanInput = { key: PlanKey; state: PlanState; timers?: TimerInput[] };

/**
 * Stores each plan as a new active row with the default repository settings, committed at `at`
 * (plus `step` ms per plan before it, so plans listed by age come back in the order given).
 */
export async function storePlans(
  store: Store,
  plans: readonly StoredPlanInput[],
  at: number,
  step = 0,
): Promise<void> {
  for (const [index, plan] of plans.entries())
    await store.commitPlan(plan.key, {
      expectedVersion: 0,
      state: { format: 1, state: plan.state, repo: REPO_SETTINGS },
      active: true,
      effects: [],
      timers: plan.timers ?? [],
      now: at + index * step,
    });
}

/**
 * The engine's dependencies over `store` at the fixed time `now`: a GitHub client per
 * installation (each installation asked for is recorded in `installations`), loom's bot login, and
 * the log's lines at info and above parsed into `lines` when given, else a silent log.
 */
export function makeEngineDeps<Line>(
  store: Store,
  now: number,
  lines?: Line[],
): { deps: EngineDeps; installations: number[] } {
  const installations: number[] = [];
  const deps: EngineDeps = {
    store,
    getOctokit: (installationId) => {
      installations.push(installationId);
      return Promise.resolve(new TestOctokit({ auth: "t" }));
    },
    now: () => now,
    workerId: "w",
    log:
      lines === undefined
        ? pino({ level: "silent" })
        : pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line) as Line) }),
    getBotLogin: () => Promise.resolve("loom[bot]"),
  };
  return { deps, installations };
}
