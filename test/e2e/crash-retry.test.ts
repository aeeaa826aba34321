import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, it } from "node:test";
import { dispatchesOf, type PullRecord } from "./e2e-requests.ts";
import { startE2E, type E2E } from "./harness.ts";
import { planText, scriptStages, writeFiles } from "./model-script.ts";
import { readStageState } from "./read-stage-state.ts";

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
/** Far longer than this test runs: only the app's clock moving can explain a retry. */
const BACKOFF_BASE_S = 600;
/** Real time the test watches for a dispatch that must not come. */
const QUIET_MS = 2_500;
/** "Just under the backoff": far more than QUIET_MS of real time, so the app's clock stays short. */
const SHORT_OF_DUE_MS = 15_000;

describe(
  "a stage whose runner dies twice is retried after its backoff on the app's clock and then succeeds",
  { timeout: 170_000 },
  () => {
    let e2e: E2E;
    let pull: PullRecord;
    before(async () => {
      e2e = await startE2E({
        script: scriptStages({ flaky: writeFiles({ "flaky.txt": "steady\n" }) }),
        loomConfig: [
          "workflow: loom.yml",
          "retry:",
          "  max_attempts: 3",
          `  backoff_base_seconds: ${BACKOFF_BASE_S}`,
          "  backoff_cap_seconds: 3600",
          "",
        ].join("\n"),
        fault: (job) => (job.attempt < 3 ? "crash" : null),
      });
      pull = await e2e.openPlan({ files: { [PLAN_PATH]: PLAN } });
    });
    after(async () => {
      await e2e?.close();
    });

    const dispatchCount = (): number => dispatchesOf(e2e.emulator.requests).length;

    it("dispatches each retry only once the app's clock has passed its backoff", async () => {
      for (const [failures, backoffS] of [
        [1, BACKOFF_BASE_S],
        [2, BACKOFF_BASE_S * 2],
      ] as const) {
        const retryAt = await e2e.waitFor(
          `attempt ${failures} to crash and its retry to be scheduled`,
          async () => {
            const stage = await readStageState(e2e, pull, "flaky");
            return stage?.failures === failures && stage.retryAt !== null ? stage.retryAt : undefined;
          },
        );
        // base·2^(n-1), measured from when the app learnt of the crash (no later than now).
        const waitMs = retryAt - e2e.clock.now();
        assert.ok(
          waitMs > (backoffS - 60) * 1000 && waitMs <= backoffS * 1000,
          `retry ${failures} is due ${backoffS} s after the crash (due in ${waitMs} ms)`,
        );
        assert.equal(dispatchCount(), failures, "no retry yet");

        await sleep(QUIET_MS);
        assert.equal(dispatchCount(), failures, "no retry while the app's clock stands still");

        e2e.clock.advance(retryAt - e2e.clock.now() - SHORT_OF_DUE_MS);
        await sleep(QUIET_MS);
        assert.equal(dispatchCount(), failures, `no retry ${SHORT_OF_DUE_MS / 1000} s short of the backoff`);

        e2e.clock.advance(retryAt - e2e.clock.now() + 1_000);
        await e2e.waitFor(
          `attempt ${failures + 1} to be dispatched`,
          () => dispatchCount() > failures,
          30_000,
        );
      }
      const dispatches = dispatchesOf(e2e.emulator.requests);
      assert.deepEqual(
        dispatches.map((d) => [d.attempt, d.kind]),
        [
          ["1", "stage"],
          ["2", "recovery"],
          ["3", "recovery"],
        ],
      );
    });

    it("ends green with the third attempt's work on the branch", async () => {
      await e2e.waitFor(
        "the plan's check run to succeed",
        async () =>
          (await e2e.checkRuns(pull)).find(
            (r) => r.name === "loom: PLAN-flaky" && r.conclusion === "success",
          ),
        90_000,
      );
      assert.equal(await e2e.readFile(pull.headRef, "flaky.txt"), "steady\n");
      assert.equal(dispatchCount(), 3, "no attempt beyond the third");
    });

    it("made only requests GitHub's OpenAPI description allows", () => {
      e2e.emulator.assertNoViolations();
    });
  },
);
