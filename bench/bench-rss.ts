import { readFileSync } from "node:fs";
import { dispatchesOf } from "../test/e2e/e2e-requests.ts";
import { startE2E } from "../test/e2e/harness.ts";
import { scriptStages } from "../test/e2e/model-script.ts";
import { UNBUDGETED_CONFIG, latticePlan } from "./bench-api.ts";
import { record } from "./targets.ts";

const PLANS = 100;
/** Sessions at once per plan (the default `max_parallel`). */
const PARALLEL = 4;

/** Resident memory of a process, from /proc (Linux), in MB. */
function residentMb(pid: number): number {
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return Number(kb) / 1024;
}

/** The V8 heap in use and reserved, and memory outside it, from the App's own `/metrics`, in MB. */
async function heapMb(webhookUrl: string): Promise<{ used: number; total: number; external: number }> {
  const text = await (await fetch(new URL("/metrics", webhookUrl))).text();
  const read = (name: string) =>
    Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? Number.NaN) / 1024 / 1024;
  return {
    used: read("nodejs_heap_size_used_bytes"),
    total: read("nodejs_heap_size_total_bytes"),
    external: read("nodejs_external_memory_bytes"),
  };
}

/**
 * The real App (`node app/main.ts`, SQLite) with 100 pull requests, each a 20-stage plan running
 * its first four stages (no runner takes the runs, so every plan stays active): the App's resident
 * memory once every plan has dispatched, and after a minute of reconciles.
 */
export async function benchRss(): Promise<void> {
  const plan = latticePlan(2, 10);
  // Counting memory, not time: without pacing, 100 plans open in minutes instead of an hour.
  const e2e = await startE2E({
    script: scriptStages({}),
    appProcess: true,
    pacing: false,
    loomConfig: UNBUDGETED_CONFIG,
  });
  try {
    e2e.emulator.setRunner(null);
    const pid = e2e.appProcess?.pid ?? null;
    if (pid === null) throw new Error("the app process is not running");
    const idle = residentMb(pid);
    for (let n = 0; n < PLANS; n++)
      await e2e.openPlan({ files: { [plan.path]: plan.text }, head: `feature/plan-${n}` });
    await e2e.waitFor(
      `${PLANS * PARALLEL} stages dispatched`,
      () => dispatchesOf(e2e.emulator.requests).length >= PLANS * PARALLEL || undefined,
      900_000,
    );
    const active = residentMb(pid);
    await new Promise((resolve) => setTimeout(resolve, 60_000));
    const later = residentMb(pid);
    const heap = await heapMb(e2e.appProcess?.webhookUrl ?? "");
    console.log(
      "| plans × stages | App RSS idle | all dispatched | a minute later (reconciles) | V8 heap used / reserved | outside the heap |",
    );
    console.log("|---|---:|---:|---:|---:|---:|");
    console.log(
      `| ${PLANS} × 20 | ${idle.toFixed(0)} MB | ${active.toFixed(0)} MB | ${later.toFixed(0)} MB | ${heap.used.toFixed(0)} / ${heap.total.toFixed(0)} MB | ${heap.external.toFixed(0)} MB |`,
    );
    const most = Math.max(active, later);
    record("rss", { value: `${most.toFixed(0)} MB`, pass: most <= 256 });
  } finally {
    await e2e.close();
  }
}
