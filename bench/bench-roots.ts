import { performance } from "node:perf_hooks";
import { dispatchesOf } from "../test/e2e/e2e-requests.ts";
import { BOT, startE2E } from "../test/e2e/harness.ts";
import { UNBUDGETED_CONFIG } from "./bench-api.ts";
import { planText, scriptStages } from "../test/e2e/model-script.ts";
import { record } from "./targets.ts";

const ROOTS = 50;

/**
 * A plan of 50 independent stages with `max_parallel: 50`, on the emulator enforcing GitHub's 80
 * writes a minute and 500 an hour, with loom's production pacing: how long until every stage is
 * dispatched (no runner takes the runs: this measures dispatch, not sessions).
 */
export async function benchRoots(): Promise<void> {
  const ids = Array.from({ length: ROOTS }, (_, i) => `r${i + 1}`);
  const stages = ids
    .map(
      (id) =>
        `- id: ${id}\n  name: Root ${id}\n  description: Write ${id}.txt\n  acceptance: ["test -f ${id}.txt"]`,
    )
    .join("\n");
  const e2e = await startE2E({
    script: scriptStages({}),
    loomConfig: `${UNBUDGETED_CONFIG}max_parallel: ${ROOTS}\n`,
  });
  try {
    e2e.emulator.setRunner(null);
    const t0 = performance.now();
    const startedAt = Date.now();
    await e2e.openPlan({ files: { "doc/plans/PLAN-roots.md": planText("Roots", `\n${stages}\n`) } });
    await e2e.waitFor(
      `all ${ROOTS} stages dispatched`,
      () => new Set(dispatchesOf(e2e.emulator.requests).map((d) => d.stageId)).size >= ROOTS || undefined,
      600_000,
    );
    const seconds = (performance.now() - t0) / 1000;
    const app = e2e.emulator.requests.filter((r) => r.login === BOT && r.at >= startedAt);
    const writes = app.filter((r) => r.method !== "GET" && r.method !== "HEAD");
    const refused = app.filter((r) => r.status === 403).length;
    const byOperation = new Map<string, number>();
    for (const r of writes)
      byOperation.set(r.operationId ?? r.path, (byOperation.get(r.operationId ?? r.path) ?? 0) + 1);
    console.log(
      "| stages | all dispatched after | App writes until then | refused (403) | writes by operation |",
    );
    console.log("|---:|---:|---:|---:|---|");
    console.log(
      `| ${ROOTS} | ${seconds.toFixed(1)} s | ${writes.length} | ${refused} | ${[...byOperation.entries()]
        .sort((a, b) => b[1] - a[1])
        .map(([name, n]) => `${name} ${n}`)
        .join(", ")} |`,
    );
    record("roots", { value: `${seconds.toFixed(1)} s (${writes.length} writes)`, pass: seconds <= 60 });
  } finally {
    await e2e.close();
  }
}
