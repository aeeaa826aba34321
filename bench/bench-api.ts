import type { RecordedRequest } from "../test/emulator/handle-request.ts";
import { BOT, startE2E } from "../test/e2e/harness.ts";
import { runPlanToGreen } from "./run-plan-to-green.ts";
import { planText, scriptStages, writeFiles } from "../test/e2e/model-script.ts";
import { CLASH_PLAN, DIAMOND_PLAN, type SamplePlan } from "../test/e2e/sample-plans.ts";
import { chainPlan } from "./bench-hop.ts";
import { record } from "./targets.ts";

/** Production's reconcile period: what plans whose cost is counted run with. */
const PRODUCTION_RECONCILE_MS = 60_000;
/**
 * The reconcile period of the run that measures run and heartbeat reads: twelve reconciles a
 * minute, so a short scripted session sees several (reads per reconcile = reads per minute in
 * production).
 */
const READS_RECONCILE_MS = 5_000;
/** Reads of a running stage's run and heartbeats. */
const RUN_READS = new Set([
  "actions/get-workflow-run",
  "actions/list-workflow-run-artifacts",
  "actions/download-artifact",
]);

/** `layers` × `width` stages; each depends on two stages of the layer before; each writes its own file. */
export function latticePlan(layers: number, width: number): SamplePlan {
  const id = (layer: number, i: number) => `l${layer}s${i}`;
  const stages: string[] = [];
  const scripts: Record<string, ReturnType<typeof writeFiles>> = {};
  for (let layer = 0; layer < layers; layer++) {
    for (let i = 0; i < width; i++) {
      const deps = layer === 0 ? [] : [...new Set([id(layer - 1, i), id(layer - 1, (i + 1) % width)])];
      stages.push(
        `- id: ${id(layer, i)}\n  name: Part ${layer}.${i}\n  description: Write ${id(layer, i)}.txt\n` +
          (deps.length > 0 ? `  dependencies: [${deps.join(", ")}]\n` : "") +
          `  acceptance: ["test -f ${id(layer, i)}.txt"]`,
      );
      scripts[id(layer, i)] = writeFiles({ [`${id(layer, i)}.txt`]: `${id(layer, i)}\n` });
    }
  }
  const count = layers * width;
  return {
    path: `doc/plans/PLAN-lattice-${count}.md`,
    id: `PLAN-lattice-${count}`,
    text: planText(`Lattice of ${count}`, `\n${stages.join("\n")}\n`),
    script: scriptStages(scripts),
  };
}

type Cost = {
  plan: string;
  stages: number;
  perStage: number;
  checkRunWrites: number;
  /** Charged run reads per reconcile of a running stage; null where reconciles were production's. */
  runReadsPerMinute: number | null;
};

type Measured = { plan: SamplePlan; stages: number; pacing: boolean; reconcileMs: number };

/**
 * The GitHub API cost of a whole plan, measured on the emulator: every REST request the app made
 * (as loom's bot) while the real app, the real action and Claude Code ran the plan to green. The
 * runner's own requests (signed blob uploads and downloads, its job token) are not the App's.
 */
export async function benchApi(options: { quick?: boolean } = {}): Promise<void> {
  console.log(
    "| plan | stages | pacing | reconcile | wall time to green | app requests | per stage | writes | check-run writes per stage | run reads per running stage per reconcile | 304s | top operations |",
  );
  console.log("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|");
  // Plans whose requests are counted run with production's reconcile (60 s): a plan is carried by
  // webhooks, and the reconcile's reads of running stages are what the run-reads row measures, on
  // the clash plan reconciled every 5 s. With 5 s everywhere, a 40 s plan counted 12 times the
  // reconcile reads production makes.
  const plans: Measured[] = [
    { plan: DIAMOND_PLAN, stages: 4, pacing: true, reconcileMs: PRODUCTION_RECONCILE_MS },
    { plan: CLASH_PLAN, stages: 4, pacing: true, reconcileMs: READS_RECONCILE_MS },
  ];
  // The lattice makes more writes than 80 a minute allows in the few minutes its scripted sessions
  // take: it runs without pacing or limits, which changes how long it takes, not what it requests.
  if (!options.quick)
    plans.push(
      { plan: chainPlan(8), stages: 8, pacing: true, reconcileMs: PRODUCTION_RECONCILE_MS },
      { plan: latticePlan(5, 10), stages: 50, pacing: false, reconcileMs: PRODUCTION_RECONCILE_MS },
    );
  const costs: Cost[] = [];
  for (const measured of plans) costs.push(await measurePlan(measured));
  const shapes = ["PLAN-diamond", "PLAN-chain-8", "PLAN-lattice-50"].map((id) =>
    costs.find((c) => c.plan === id),
  );
  if (shapes.every((cost) => cost !== undefined)) {
    const [diamond, , lattice] = shapes;
    record("requests", {
      value: shapes.map((c) => c.perStage.toFixed(1)).join(" / "),
      pass: shapes.every((c) => c.perStage <= 12) && lattice!.perStage <= diamond!.perStage * 1.2,
    });
    record("check-run-writes", {
      value: shapes.map((c) => c.checkRunWrites.toFixed(1)).join(" / "),
      pass: shapes.every((c) => c.checkRunWrites <= 8) && lattice!.checkRunWrites <= diamond!.checkRunWrites,
    });
  }
  // Run and heartbeat reads per reconcile of the clash plan's short sessions, printed above: their
  // first read and status changes weigh on every reconcile. The target's row is measured on one
  // long session at production cadence (`npm run bench -- reads`).
}

/**
 * `.github/loom.yml` of a benchmark that runs plans bigger than loom's default budget lets start
 * (forecast at the default session cap, more than 10 stages): no budget, so the plan runs as
 * measured before budgets had defaults.
 */
export const UNBUDGETED_CONFIG = "workflow: loom.yml\nbudget:\n  plan_usd: none\n";

async function measurePlan({ plan, stages, pacing, reconcileMs }: Measured): Promise<Cost> {
  const e2e = await startE2E({ script: plan.script, pacing, reconcileMs, loomConfig: UNBUDGETED_CONFIG });
  try {
    const { seconds } = await runPlanToGreen(e2e, plan, 900_000);
    const app = e2e.emulator.requests.filter((r: RecordedRequest) => r.login === BOT);
    const writes = app.filter((r) => r.method !== "GET" && r.method !== "HEAD").length;
    const notModified = app.filter((r) => r.status === 304).length;
    const checkRunWrites = app.filter(
      (r) => r.operationId === "checks/create" || r.operationId === "checks/update",
    ).length;
    // Reads of runs and heartbeats made while the run ran, over the reconciles that ran meanwhile:
    // with the production reconcile of 60 s, that is what a running stage costs a minute. A 304
    // answer to a conditional read is free (it does not count against the rate limit). The reads
    // of a run's result once it ended (list, download) happen once per stage, whatever its
    // length: they are in the requests per stage, not in this polling rate.
    const ended = new Map(e2e.emulator.state.runs.map((run) => [run.id, run.updatedAt]));
    const runOfArtifact = new Map(e2e.emulator.state.artifacts.map((a) => [a.id, a.runId]));
    const whileRunning = (r: RecordedRequest): boolean => {
      const run = /\/actions\/runs\/(\d+)/.exec(r.path);
      const artifact = /\/actions\/artifacts\/(\d+)/.exec(r.path);
      const id = run ? Number(run[1]) : artifact ? runOfArtifact.get(Number(artifact[1])) : undefined;
      const end = id === undefined ? undefined : ended.get(id);
      return end !== undefined && r.at < end;
    };
    const runReads = app.filter(
      (r) => RUN_READS.has(r.operationId ?? "") && r.status !== 304 && whileRunning(r),
    ).length;
    const runningMs = e2e.emulator.state.runs.reduce((sum, run) => sum + (run.updatedAt - run.createdAt), 0);
    const perReconcile =
      reconcileMs === READS_RECONCILE_MS ? runReads / Math.max(1, runningMs / reconcileMs) : null;
    const byOperation = new Map<string, number>();
    for (const r of app) {
      const name = r.operationId ?? `${r.method} ${r.path}`;
      byOperation.set(name, (byOperation.get(name) ?? 0) + 1);
    }
    const top = [...byOperation.entries()]
      .sort((x, y) => y[1] - x[1])
      .slice(0, 6)
      .map(([name, n]) => `${name} ${n}`)
      .join(", ");
    console.log(
      `| ${plan.id} | ${stages} | ${pacing ? "on" : "off"} | ${reconcileMs / 1000} s | ${seconds.toFixed(1)} s | ${app.length} | ${(app.length / stages).toFixed(1)} | ${writes} | ${(checkRunWrites / stages).toFixed(1)} | ${perReconcile?.toFixed(2) ?? "— (60 s)"} | ${notModified} | ${top} |`,
    );
    return {
      plan: plan.id,
      stages,
      perStage: app.length / stages,
      checkRunWrites: checkRunWrites / stages,
      runReadsPerMinute: perReconcile,
    };
  } finally {
    await e2e.close();
  }
}
