import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { dispatchesOf, type PullRecord } from "./e2e-requests.ts";
import { startE2E, type E2E } from "./harness.ts";
import { planText, scriptStages, writeFiles } from "./model-script.ts";

const PLAN_PATH = "doc/plans/PLAN-flaky.md";
const PLAN = planText(
  "Flaky",
  `
- id: flaky
  name: Flaky runner
  description: Write flaky.txt
  acceptance: ["grep -q steady flaky.txt"]
`,
);
const BACKOFF_BASE_S = 2;

describe(
  "a stage whose runner dies twice is retried with backoff and then succeeds",
  { timeout: 200_000 },
  () => {
    let e2e: E2E;
    let pull: PullRecord;
    const completedAt = new Map<number, number>();
    before(async () => {
      e2e = await startE2E({
        script: scriptStages({ flaky: writeFiles({ "flaky.txt": "steady\n" }) }),
        loomConfig: `workflow: loom.yml\nretry:\n  max_attempts: 3\n  backoff_base_seconds: ${BACKOFF_BASE_S}\n`,
        fault: (job) => (job.attempt < 3 ? "crash" : null),
        onRunnerEvent: (event) => {
          if (event.type === "run.completed") completedAt.set(event.runId, Date.now());
        },
      });
      pull = await e2e.openPlan({ files: { [PLAN_PATH]: PLAN } });
      // While a retry is due the stage shows blocked and the plan check fails; wait for the end.
      await e2e
        .waitFor(
          "the plan's check run to succeed",
          async () =>
            (await e2e.checkRuns(pull)).find(
              (r) => r.name === "loom: PLAN-flaky" && r.conclusion === "success",
            ),
          90_000,
        )
        .catch((error: unknown) => error);
    });
    after(async () => {
      await e2e?.close();
    });

    it("ends green with the third attempt's work on the branch", async () => {
      const plan = (await e2e.checkRuns(pull)).find((r) => r.name === "loom: PLAN-flaky");
      assert.equal(plan?.conclusion, "success", e2e.describe());
      assert.equal(await e2e.readFile(pull.headRef, "flaky.txt"), "steady\n");
    });

    it("dispatched attempts 1, 2 and 3, each no sooner than its backoff after the crash before it", () => {
      const dispatches = dispatchesOf(e2e.emulator.requests);
      assert.deepEqual(
        dispatches.map((d) => d.attempt),
        ["1", "2", "3"],
      );
      const runs = e2e.emulator.state.runs.sort((a, b) => a.id - b.id);
      for (const [i, backoffS] of [BACKOFF_BASE_S, BACKOFF_BASE_S * 2].entries()) {
        const crashed = completedAt.get(runs[i]?.id ?? 0) ?? Infinity;
        const next = runs[i + 1]?.createdAt ?? 0;
        // A lower bound only: a slow machine can be late, never early.
        assert.ok(
          next - crashed >= backoffS * 1000 - 250,
          `attempt ${i + 2} waited its ${backoffS}s backoff`,
        );
      }
    });

    it("made only requests GitHub's OpenAPI description allows", () => {
      e2e.emulator.assertNoViolations();
    });
  },
);
