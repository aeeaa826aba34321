import type { RecordedRequest } from "../test/emulator/handle-request.ts";
import { parsePlan } from "../src/plan/parse-plan.ts";
import { dispatchesOf, mergesOf } from "../test/e2e/e2e-requests.ts";
import { BOT, startE2E } from "../test/e2e/harness.ts";
import { runPlanToGreen } from "./run-plan-to-green.ts";
import { planText, scriptStages, writeFiles } from "../test/e2e/model-script.ts";
import { DIAMOND_PLAN, type SamplePlan } from "../test/e2e/sample-plans.ts";
import { record } from "./targets.ts";

/** GitHub's answer time the emulator adds to every REST request. */
const LATENCY_MS = 50;

/** A chain of `count` stages, each writing its own file after the one before. */
export function chainPlan(count: number): SamplePlan {
  const ids = Array.from({ length: count }, (_, i) => `s${i + 1}`);
  const stages = ids
    .map(
      (id, i) =>
        `- id: ${id}\n  name: Step ${i + 1}\n  description: Write ${id}.txt\n` +
        (i === 0 ? "" : `  dependencies: [${ids[i - 1]}]\n`) +
        `  acceptance: ["test -f ${id}.txt"]`,
    )
    .join("\n");
  return {
    path: `doc/plans/PLAN-chain-${count}.md`,
    id: `PLAN-chain-${count}`,
    text: planText(`Chain of ${count}`, `\n${stages}\n`),
    script: scriptStages(Object.fromEntries(ids.map((id) => [id, writeFiles({ [`${id}.txt`]: `${id}\n` })]))),
  };
}

/** The dependencies of each stage, as loom reads the plan (`parsePlan`). */
export function dependenciesOf(plan: SamplePlan): Map<string, string[]> {
  const parsed = parsePlan(plan.path, plan.text);
  if (!parsed.ok) throw new Error(`${plan.path} does not parse: ${parsed.errors[0]?.message ?? ""}`);
  return new Map(parsed.plan.stages.map((stage) => [stage.id, stage.dependencies]));
}

export type Hop = { stage: string; ms: number };

/**
 * Every hop of a finished plan: for each stage with dependencies, from GitHub's answer to the
 * App's merge of the last of them to its answer to the stage's first dispatch.
 */
export function measureHops(plan: SamplePlan, requests: readonly RecordedRequest[]): Hop[] {
  const app = requests.filter((r) => r.login === BOT);
  const merges = mergesOf(app).filter((m) => m.status === 201 || m.status === 204);
  const dispatches = dispatchesOf(app);
  const branchOf = (stage: string) => `loom/pr-1/${plan.id}/${stage}`;
  const hops: Hop[] = [];
  for (const [stage, deps] of dependenciesOf(plan)) {
    const dispatch = dispatches.find((d) => d.stageId === stage);
    const merged = deps.map((d) => merges.find((m) => m.head === branchOf(d))?.at);
    if (deps.length === 0 || dispatch === undefined || merged.some((at) => at === undefined)) continue;
    hops.push({ stage, ms: dispatch.at - Math.max(...(merged as number[])) });
  }
  return hops;
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** Runs each plan to green with 50 ms latency on every request and loom's production pacing. */
export async function collectHops(
  plans: readonly SamplePlan[],
): Promise<{ plan: string; hops: Hop[]; seconds: number }[]> {
  const results = [];
  for (const plan of plans) {
    const e2e = await startE2E({ script: plan.script });
    try {
      e2e.emulator.faults.route({ path: /./, type: "latency", ms: LATENCY_MS, times: Infinity });
      const { seconds } = await runPlanToGreen(e2e, plan, 300_000);
      results.push({ plan: plan.id, hops: measureHops(plan, e2e.emulator.requests), seconds });
    } finally {
      await e2e.close();
    }
  }
  return results;
}

export async function benchHop(options: { quick?: boolean } = {}): Promise<void> {
  const plans = options.quick ? [DIAMOND_PLAN] : [DIAMOND_PLAN, chainPlan(8)];
  const results = await collectHops(plans);
  console.log(
    `Every REST request answered after ${LATENCY_MS} ms; production pacing (LOOM_GITHUB_THROTTLE=on).`,
  );
  console.log("| plan | hops | p50 | p99 | max | wall time to green | hop vs cosmix/loom's 5 s poll (p50) |");
  console.log("|---|---:|---:|---:|---:|---:|---:|");
  const all: number[] = [];
  for (const { plan, hops, seconds } of results) {
    const ms = hops.map((hop) => hop.ms);
    all.push(...ms);
    console.log(
      `| ${plan} | ${ms.length} | ${percentile(ms, 50)} ms | ${percentile(ms, 99)} ms | ${Math.max(...ms)} ms | ${seconds.toFixed(1)} s | ${(percentile(ms, 50) / 5000).toFixed(2)}× |`,
    );
  }
  const p50 = percentile(all, 50);
  const p99 = percentile(all, 99);
  console.log(`all hops: p50 ${p50} ms, p99 ${p99} ms (target ≤ 500 / ≤ 1500)`);
  record("hop", { value: `${p50} ms / ${p99} ms (${all.length} hops)`, pass: p50 <= 500 && p99 <= 1500 });
}
