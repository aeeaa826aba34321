import { performance } from "node:perf_hooks";
import type { Effect } from "../src/orchestrator/effects.ts";
import type { PlanSpec } from "../src/orchestrator/events.ts";
import { World } from "../test/orchestrator/world.ts";
import { splitStoredPlan } from "../app/engine/stored-plan.ts";
import type { PlanRecord } from "../app/store/store.ts";
import { REPO_SETTINGS as REPO, applySplit } from "../test/app/stored-plan-fixture.ts";
import { record as recordTarget } from "./targets.ts";

function layeredPlan(count: number): PlanSpec {
  return {
    id: "PLAN-bench",
    name: "bench",
    path: "doc/plans/PLAN-bench.md",
    blobSha: "0123456789abcdef0123456789abcdef01234567",
    stages: Array.from({ length: count }, (_, i) => {
      const layer = Math.floor(i / 10);
      const dependencies =
        layer === 0 ? [] : [`s${(layer - 1) * 10 + (i % 10)}`, `s${(layer - 1) * 10 + ((i + 1) % 10)}`];
      return {
        id: `s${i}`,
        name: `Stage ${i}`,
        dependencies: [...new Set(dependencies)],
        stageType: "standard" as const,
      };
    }),
  };
}

/**
 * Drives a whole plan through `step` in a simulated, cooperative GitHub (every run completes,
 * every merge lands) and reports what the app would pay: steps, effects by type per stage, time
 * per step and the size of the state the store writes on every commit.
 */
export function benchReducer(options: { quick?: boolean } = {}): void {
  console.log(
    "| stages | steps | effects/stage | effects by type (per stage) | time/step median | state JSON | state written in all (whole state a commit, before the split) |",
  );
  console.log("|---:|---:|---:|---|---:|---:|---:|");
  for (const count of options.quick ? [10, 250] : [10, 100, 250]) {
    const counts = new Map<Effect["type"], number>();
    const times: number[] = [];
    let steps = 0;
    let written = 0;
    let whole = 0;
    let record: Pick<PlanRecord, "state" | "parts"> | null = null;
    const world = new World(layeredPlan(count), {
      seed: 42,
      cooperative: true,
      maxParallel: 8,
      onStep: (_before, after, effects) => {
        steps++;
        // What the store writes on a commit (one a step): the plan's core and the parts that changed.
        const split = splitStoredPlan({ format: 1, state: after, repo: REPO }, record);
        record = { state: split.core, parts: applySplit(record?.parts, split) };
        written += Buffer.byteLength(JSON.stringify(split.core));
        for (const text of Object.values(split.setParts)) written += Buffer.byteLength(text);
        whole += Buffer.byteLength(JSON.stringify(after));
        for (const e of effects) counts.set(e.type, (counts.get(e.type) ?? 0) + 1);
      },
    });
    for (let i = 0; i < 200_000 && !world.isQuiet(); i++) {
      const t0 = performance.now();
      world.act();
      times.push(performance.now() - t0);
    }
    const done = Object.values(world.state.stages).filter((s) => s.status === "completed" && s.merged).length;
    if (done !== count) console.log(`(only ${done}/${count} stages finished: the simulation stopped early)`);
    times.sort((a, b) => a - b);
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    const byType = [...counts.entries()]
      .sort()
      .map(([t, n]) => `${t} ${(n / count).toFixed(1)}`)
      .join(", ");
    const median = times[Math.floor(times.length / 2)] ?? 0;
    const bytes = JSON.stringify(world.state).length;
    console.log(
      `| ${count} | ${steps} | ${(total / count).toFixed(1)} | ${byType} | ${(median * 1000).toFixed(0)} µs | ${(bytes / 1024).toFixed(0)} KiB | ${(written / 1e6).toFixed(1)} MB (${(whole / 1e6).toFixed(1)} MB) |`,
    );
    if (count === 250) {
      recordTarget("store", {
        value: `${(steps / count).toFixed(1)} / ${(written / 1e6).toFixed(1)} MB (reducer steps, one commit each; the core and the changed stages a commit)`,
        pass: steps / count <= 20 && written <= 50e6,
      });
    }
  }
}
