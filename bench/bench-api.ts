import { performance } from "node:perf_hooks";
import type { RecordedRequest } from "../test/emulator/handle-request.ts";
import { BOT, startE2E } from "../test/e2e/harness.ts";
import { CLASH_PLAN, DIAMOND_PLAN } from "../test/e2e/sample-plans.ts";

/**
 * The GitHub API cost of a whole plan, measured on the emulator: every REST request the app made
 * (as loom's bot) while the real app, the real action and Claude Code ran the plan to green. The
 * runner's own requests (signed blob uploads and downloads, its job token) are not the App's.
 */
export async function benchApi(): Promise<void> {
  console.log(
    "| plan | stages | wall time to green | app requests | per stage | writes | check-run writes per stage | 304s | top operations |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|---|");
  for (const plan of [
    { ...DIAMOND_PLAN, stages: 4 },
    { ...CLASH_PLAN, stages: 4 },
  ]) {
    const e2e = await startE2E({ script: plan.script });
    try {
      const t0 = performance.now();
      const pull = await e2e.openPlan({ files: { [plan.path]: plan.text } });
      await e2e.waitFor(
        "the plan check run to succeed",
        async () =>
          (await e2e.checkRuns(pull)).find(
            (r) => r.name === `loom: ${plan.id}` && r.status === "completed" && r.conclusion === "success",
          ),
        300_000,
      );
      const seconds = (performance.now() - t0) / 1000;
      const app = e2e.emulator.requests.filter((r: RecordedRequest) => r.login === BOT);
      const writes = app.filter((r) => r.method !== "GET" && r.method !== "HEAD").length;
      const notModified = app.filter((r) => r.status === 304).length;
      const checkRunWrites = app.filter(
        (r) => r.operationId === "checks/create" || r.operationId === "checks/update",
      ).length;
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
        `| ${plan.id} | ${plan.stages} | ${seconds.toFixed(1)} s | ${app.length} | ${(app.length / plan.stages).toFixed(1)} | ${writes} | ${(checkRunWrites / plan.stages).toFixed(1)} | ${notModified} | ${top} |`,
      );
    } finally {
      await e2e.close();
    }
  }
}
