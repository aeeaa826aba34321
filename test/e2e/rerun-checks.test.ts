import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { CheckRunRecord, CommentRecord } from "../emulator/emulator-state.ts";
import { dispatchesOf, type PullRecord } from "./e2e-requests.ts";
import { BOT, startE2E, type E2E } from "./harness.ts";
import { planText, scriptStages, writeFiles } from "./model-script.ts";

const PLAN_PATH = "doc/plans/PLAN-rerun.md";
const PLAN_CHECK = "loom: PLAN-rerun";
const PLAN = planText(
  "Rerun",
  `
- id: shaky
  name: Shaky
  description: Write shaky.txt
  acceptance: ["grep -q fine shaky.txt"]
`,
);

/**
 * GitHub's own re-run controls on a pull request: "Re-run" on one check run
 * (`check_run.rerequested`) and "Re-run failed checks" / "Re-run all checks" (both sent as
 * `check_suite.rerequested` to the App that owns the suite). The runner dies on the first two
 * attempts, and one attempt is all the retry policy allows, so only a person's re-run starts the
 * next one.
 */
describe(
  "GitHub's Re-run and Re-run failed checks run a failed stage again",
  {
    timeout: 200_000,
  },
  () => {
    let e2e: E2E;
    let pull: PullRecord;
    const failedAttempts: CheckRunRecord[] = [];
    let nothingToRerun: CommentRecord | undefined;
    const dispatches = () => dispatchesOf(e2e.emulator.requests).filter((d) => d.stageId === "shaky");
    const attempts = () => dispatches().map((d) => d.attempt);
    /**
     * The stage's check run once it shows attempt `attempt` failed: completed after that attempt's
     * dispatch (right after a re-run the check run still shows the previous attempt's failure).
     */
    const failedCheck = (attempt: number) =>
      e2e.waitFor(`attempt ${attempt} to fail`, async () => {
        const dispatched = dispatches()[attempt - 1];
        const run = (await e2e.checkRuns(pull)).find((r) => r.name === "loom: shaky");
        return dispatches().length === attempt &&
          dispatched !== undefined &&
          run?.conclusion === "failure" &&
          (run.completedAt ?? 0) > dispatched.at
          ? run
          : undefined;
      });

    before(async () => {
      e2e = await startE2E({
        script: scriptStages({ shaky: writeFiles({ "shaky.txt": "fine\n" }) }),
        loomConfig: "workflow: loom.yml\nretry:\n  max_attempts: 1\n",
        fault: (job) => (job.attempt < 3 ? "crash" : null),
      });
      const alice = e2e.emulator.as("alice");
      pull = await e2e.openPlan({ files: { [PLAN_PATH]: PLAN } });
      failedAttempts.push(await failedCheck(1));
      await alice.rerequest(failedAttempts[0]!.id);
      failedAttempts.push(await failedCheck(2));
      await alice.rerunChecks(pull.number, { failedOnly: true });
      await e2e.waitFor("the plan's check run to succeed", async () =>
        (await e2e.checkRuns(pull)).find((r) => r.name === PLAN_CHECK && r.conclusion === "success"),
      );
      const before = e2e.emulator.state.comments.length;
      await alice.rerunChecks(pull.number);
      nothingToRerun = await e2e
        .waitFor("the answer to Re-run all checks", () =>
          e2e.emulator.state.comments.slice(before).find((c) => c.user === BOT),
        )
        .catch(() => undefined);
    });
    after(async () => {
      await e2e?.close();
    });

    it("shows the failed attempt with Retry and Skip, and does not retry it by itself", () => {
      const [first] = failedAttempts;
      assert.match(first?.output.summary ?? "", /gave up after 1 failed attempts/);
      assert.deepEqual(
        first?.actions.map((a) => a.identifier),
        ["retry", "skip"],
      );
    });

    it("starts attempt 2 on the stage's own Re-run, and attempt 3 on Re-run failed checks", () => {
      assert.deepEqual(attempts(), ["1", "2", "3"], e2e.describe());
      assert.equal(failedAttempts.length, 2);
    });

    it("ends green with attempt 3's work on the pull request's branch", async () => {
      const plan = (await e2e.checkRuns(pull)).find((r) => r.name === PLAN_CHECK);
      assert.equal(plan?.conclusion, "success", e2e.describe());
      assert.equal(await e2e.readFile(pull.headRef, "shaky.txt"), "fine\n");
    });

    it("answers Re-run all checks on a green plan with why nothing ran, and starts nothing", () => {
      assert.match(nothingToRerun?.body ?? "", /Nothing of PLAN-rerun to re-run: no stage has failed\./);
      assert.deepEqual(attempts(), ["1", "2", "3"]);
    });

    it("made only requests GitHub's OpenAPI description allows", () => {
      e2e.emulator.assertNoViolations();
    });
  },
);
