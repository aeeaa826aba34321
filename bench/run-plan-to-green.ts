import { performance } from "node:perf_hooks";
import type { E2E } from "../test/e2e/harness.ts";
import type { PullRecord } from "../test/e2e/e2e-requests.ts";
import type { SamplePlan } from "../test/e2e/sample-plans.ts";

/**
 * Opens a pull request with `plan` and waits for its plan check run to succeed. `seconds`: the wall
 * time it took, pushing the plan's branch included; `openToGreenSeconds`: from the pull request's
 * creation to the plan check run's completion, both as the emulator recorded them (what loom took,
 * without the test's push or its polling).
 */
export async function runPlanToGreen(
  e2e: E2E,
  plan: SamplePlan,
  timeoutMs = 300_000,
): Promise<{ pull: PullRecord; seconds: number; openToGreenSeconds: number }> {
  const t0 = performance.now();
  const pull = await e2e.openPlan({ files: { [plan.path]: plan.text } });
  const green = await e2e.waitFor(
    "the plan check run to succeed",
    async () =>
      (await e2e.checkRuns(pull)).find(
        (r) => r.name === `loom: ${plan.id}` && r.status === "completed" && r.conclusion === "success",
      ),
    timeoutMs,
  );
  const seconds = (performance.now() - t0) / 1000;
  const openToGreenSeconds = ((green.completedAt ?? e2e.clock.now()) - pull.createdAt) / 1000;
  return { pull, seconds, openToGreenSeconds };
}
