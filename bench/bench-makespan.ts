import { startE2E } from "../test/e2e/harness.ts";
import { stayBusy } from "../test/e2e/model-script.ts";
import type { SamplePlan } from "../test/e2e/sample-plans.ts";
import { DIAMOND_PLAN } from "../test/e2e/sample-plans.ts";
import { chainPlan, dependenciesOf } from "./bench-hop.ts";
import { runPlanToGreen } from "./run-plan-to-green.ts";
import { record } from "./targets.ts";

/** How long each scripted session works (one Bash `sleep`) before writing its file. */
const SESSION_SECONDS = 30;

/** The same plan whose every session first stays busy for `SESSION_SECONDS`, then does its own work. */
function withLongSessions(plan: SamplePlan): SamplePlan {
  const busy = stayBusy(SESSION_SECONDS);
  return {
    ...plan,
    script: async (job) => {
      const own = await plan.script(job);
      return { ...own, turns: [...busy(job).slice(0, -1), ...own.turns] };
    },
  };
}

/** The longest path through the plan, each stage weighted by how long its run took. */
function criticalPathMs(plan: SamplePlan, runMs: Map<string, number>): number {
  const deps = dependenciesOf(plan);
  const memo = new Map<string, number>();
  const finish = (id: string): number => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    const value = (runMs.get(id) ?? 0) + Math.max(0, ...(deps.get(id) ?? []).map(finish));
    memo.set(id, value);
    return value;
  };
  return Math.max(...[...deps.keys()].map(finish));
}

/**
 * Makespan (pull request opened → the plan's check run green, both as the emulator recorded them:
 * not the test's push of the plan branch, nor its polling) over the critical path (the longest
 * chain of the stages' own runs, dispatch to completion): what orchestration adds to the work.
 * Production pacing, sessions of 30 s.
 */
export async function benchMakespan(): Promise<void> {
  console.log("| plan | makespan | critical path (runs) | ratio |");
  console.log("|---|---:|---:|---:|");
  const ratios: string[] = [];
  let worst = 0;
  for (const base of [DIAMOND_PLAN, chainPlan(8)]) {
    const plan = withLongSessions(base);
    const e2e = await startE2E({ script: plan.script, jobTimeoutMs: 600_000 });
    try {
      const makespan = (await runPlanToGreen(e2e, plan, 900_000)).openToGreenSeconds * 1000;
      const runMs = new Map<string, number>();
      for (const run of e2e.emulator.state.runs) {
        const stage = run.inputs["stage_id"];
        if (stage !== undefined && run.conclusion === "success")
          runMs.set(stage, run.updatedAt - run.createdAt);
      }
      const critical = criticalPathMs(plan, runMs);
      const ratio = makespan / critical;
      worst = Math.max(worst, ratio);
      ratios.push(ratio.toFixed(3));
      console.log(
        `| ${plan.id} | ${(makespan / 1000).toFixed(1)} s | ${(critical / 1000).toFixed(1)} s | ${ratio.toFixed(3)} |`,
      );
    } finally {
      await e2e.close();
    }
  }
  record("makespan", { value: ratios.join(" / "), pass: worst <= 1.02 });
}
