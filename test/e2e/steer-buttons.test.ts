import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { CheckRunRecord, RunRecord } from "../emulator/emulator-state.ts";
import { dispatchesOf, type PullRecord } from "./e2e-requests.ts";
import { BOT, startE2E, type E2E } from "./harness.ts";
import { planText, scriptStages, stayBusy, writeFiles } from "./model-script.ts";

const PLAN_PATH = "doc/plans/PLAN-buttons.md";
const PLAN = planText(
  "Buttons",
  `
- id: slow
  name: Slow
  description: Take a long time over slow.txt
  acceptance: ["grep -q slow slow.txt"]
- id: later
  name: Later
  description: Write later.txt
  acceptance: ["grep -q later later.txt"]
`,
);

/**
 * The buttons on loom's check runs (`check_run.requested_action`): Cancel on a running stage, Retry
 * on the cancelled one, Skip on a running one. A stage waiting in line has no check run yet (the
 * plan's check run lists it; `/loom skip` reaches it).
 */
describe(
  "the Skip, Cancel and Retry buttons act on the stage of their check run",
  { timeout: 200_000 },
  () => {
    let e2e: E2E;
    let pull: PullRecord;
    let waitingRuns: CheckRunRecord[] = [];
    let planWhileWaiting: CheckRunRecord | undefined;
    let running: CheckRunRecord | undefined;
    let cancelled: CheckRunRecord | undefined;
    let laterRunning: CheckRunRecord | undefined;
    let slowRun: RunRecord | undefined;
    let laterRun: RunRecord | undefined;
    let dispatchedBeforeRetry: string[] = [];
    const dispatched = () => dispatchesOf(e2e.emulator.requests).map((d) => `${d.stageId}#${d.attempt}`);
    /** A stage's newest check run on any head, once `ready` holds for it. */
    const checkRun = (id: string, ready: (run: CheckRunRecord) => boolean) =>
      e2e.waitFor(`${id}'s check run`, () => {
        const newest = e2e.emulator.state.checkRuns
          .filter((r) => r.app === BOT && r.name === `loom: ${id}`)
          .reduce<CheckRunRecord | undefined>((a, r) => (a && a.id > r.id ? a : r), undefined);
        return newest && ready(newest) ? structuredClone(newest) : undefined;
      });
    const runOf = (stageId: string, attempt: string) =>
      e2e.waitFor(`${stageId}'s run ${attempt} to be in progress`, () =>
        e2e.emulator.state.runs.find(
          (r) =>
            r.inputs["stage_id"] === stageId && r.inputs["attempt"] === attempt && r.status === "in_progress",
        ),
      );

    before(async () => {
      e2e = await startE2E({
        // One session at a time: `later` waits in line behind `slow`.
        loomConfig: "workflow: loom.yml\nmax_parallel: 1\n",
        script: scriptStages({
          "slow:1": stayBusy(60),
          "slow:2": writeFiles({ "slow.txt": "slow\n" }),
          later: stayBusy(60),
        }),
      });
      const alice = e2e.emulator.as("alice");
      pull = await e2e.openPlan({ files: { [PLAN_PATH]: PLAN } });
      slowRun = await runOf("slow", "1");
      running = await checkRun("slow", (r) => r.actions.some((a) => a.identifier === "cancel"));
      planWhileWaiting = await checkRun("PLAN-buttons", (r) => /`later`/.test(r.output.summary ?? ""));
      waitingRuns = e2e.emulator.state.checkRuns.filter((r) => r.name === "loom: later");
      await alice.clickButton(running.id, "cancel");
      cancelled = await checkRun("slow", (r) => r.conclusion === "failure");
      dispatchedBeforeRetry = dispatched();
      await alice.clickButton(cancelled.id, "retry");
      laterRun = await runOf("later", "1");
      laterRunning = await checkRun("later", (r) => r.actions.some((a) => a.identifier === "skip"));
      await alice.clickButton(laterRunning.id, "skip");
      await e2e
        .waitFor(
          "the plan's check run to succeed",
          async () =>
            (await e2e.checkRuns(pull)).find(
              (r) => r.name === "loom: PLAN-buttons" && r.conclusion === "success",
            ),
          120_000,
        )
        .catch((error: unknown) => error);
    });
    after(async () => {
      await e2e?.close();
    });

    it("gives a stage waiting in line no check run; the plan's check run lists it", () => {
      assert.ok(planWhileWaiting, "the plan's check run lists later");
      assert.deepEqual(waitingRuns, [], "later has no check run while it waits");
    });

    it("offers Cancel and Skip on a running stage; Cancel stops its run on GitHub and the check run offers Retry", () => {
      assert.deepEqual(
        running?.actions.map((a) => a.identifier),
        ["cancel", "skip"],
      );
      assert.equal(e2e.emulator.state.runs.find((r) => r.id === slowRun?.id)?.conclusion, "cancelled");
      assert.match(cancelled?.output.summary ?? "", /cancelled by @(&#8203;)?alice/);
      assert.deepEqual(
        cancelled?.actions.map((a) => a.identifier),
        ["retry", "skip"],
      );
      // The slot slow held goes to later; slow itself is not run again until someone says so.
      assert.deepEqual(dispatchedBeforeRetry, ["slow#1", "later#1"], "a cancelled stage waits for a person");
    });

    it("runs the stage again on Retry", async () => {
      assert.deepEqual(dispatched(), ["slow#1", "later#1", "slow#2"], e2e.describe());
      assert.equal(await e2e.readFile(pull.headRef, "slow.txt"), "slow\n");
    });

    it("skips a running stage on Skip: its run is cancelled, its check run ends skipped, and the plan ends green", async () => {
      assert.equal(e2e.emulator.state.runs.find((r) => r.id === laterRun?.id)?.conclusion, "cancelled");
      const later = await checkRun("later", (r) => r.status === "completed");
      assert.equal(later.conclusion, "skipped");
      assert.match(later.output.summary ?? "", /skipped by @(&#8203;)?alice/);
      assert.deepEqual(later.actions, []);
      const plan = (await e2e.checkRuns(pull)).find((r) => r.name === "loom: PLAN-buttons");
      const shown = (await e2e.checkRuns(pull)).map(
        (r) => `${r.name} ${r.status}/${r.conclusion} ${r.output.title}`,
      );
      assert.equal(plan?.conclusion, "success", `${shown.join("\n")}\n${e2e.describe()}`);
    });

    it("made only requests GitHub's OpenAPI description allows", () => {
      e2e.emulator.assertNoViolations();
    });
  },
);
