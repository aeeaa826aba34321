import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, it } from "node:test";
import { dispatchesOf, type PullRecord } from "./e2e-requests.ts";
import { startE2E, type E2E } from "./harness.ts";
import { planText, scriptStages, writeFiles } from "./model-script.ts";
import { readStageState } from "./read-stage-state.ts";

const PLAN_PATH = "doc/plans/PLAN-chain.md";
const PLAN = planText(
  "Chain",
  `
- id: a
  name: Base
  description: Write a.txt, the base the next stage builds on
  acceptance: ["grep -q alpha a.txt"]
- id: b
  name: Next
  description: Write b.txt next to a.txt
  dependencies: [a]
  acceptance: ["grep -q alpha a.txt", "grep -q beta b.txt"]
`,
);
/** Far past the heartbeat timeout (60 s): on github.com this silence would cancel the run as hung. */
const SILENCE_MS = 10 * 60_000;

describe(
  "on GitHub Enterprise Server a plan runs end to end with the artifact API v3 (GITHUB_SERVER_URL is the GHES host)",
  { timeout: 280_000 },
  () => {
    let e2e: E2E;
    let pull: PullRecord;
    let crashedRunId = 0;
    before(async () => {
      e2e = await startE2E({
        ghes: true,
        script: scriptStages({
          a: writeFiles({ "a.txt": "alpha\n" }),
          b: writeFiles({ "b.txt": "beta\n" }),
        }),
        loomConfig: [
          "workflow: loom.yml",
          "heartbeat_timeout_seconds: 60",
          "retry:",
          "  backoff_base_seconds: 0",
          "",
        ].join("\n"),
        // b's first runner is lost: its recovery reads the previous run through the REST API.
        fault: (job) => {
          if (job.stageId !== "b" || job.attempt !== 1) return null;
          crashedRunId = job.runId;
          return "crash";
        },
      });
      pull = await e2e.openPlan({ files: { [PLAN_PATH]: PLAN } });
      // While a runs, its heartbeats are invisible (v3): the App's clock passes the timeout by far.
      await e2e.waitFor("stage a's run to be running", async () => {
        const session = (await readStageState(e2e, pull, "a"))?.sessions[0];
        return session?.status === "running" && session.runId !== null;
      });
      e2e.clock.advance(SILENCE_MS);
      await e2e.waitForPlanEnd(pull, "PLAN-chain", 2, 240_000);
    });
    after(async () => {
      await e2e?.close();
    });

    it("ends green: every loom check run on the pull request's head is a success", async () => {
      const runs = await e2e.checkRuns(pull);
      assert.deepEqual(
        runs.map((r) => [r.name, r.status, r.conclusion]),
        [
          ["loom: a", "completed", "success"],
          ["loom: b", "completed", "success"],
          ["loom: PLAN-chain", "completed", "success"],
        ],
        e2e.describe(),
      );
      assert.deepEqual(await Promise.all(["a.txt", "b.txt"].map((f) => e2e.readFile(pull.headRef, f))), [
        "alpha\n",
        "beta\n",
      ]);
    });

    it("never cancelled a running run as hung although no heartbeat could be read", async () => {
      await sleep(500);
      const cancels = e2e.emulator.requests.filter((r) => r.operationId === "actions/cancel-workflow-run");
      assert.deepEqual(cancels, []);
      assert.deepEqual(
        dispatchesOf(e2e.emulator.requests).map((d) => [d.stageId, d.attempt, d.kind]),
        [
          ["a", "1", "stage"],
          ["b", "1", "stage"],
          ["b", "2", "recovery"],
        ],
      );
    });

    it("the action uploaded through the artifact API v3, and the App read each result from its run's loom result check run or over REST after the run", () => {
      const { requests, state } = e2e.emulator;
      assert.ok(state.artifacts.length > 0);
      for (const artifact of state.artifacts)
        assert.equal(artifact.listedAfterRunCompletes, true, `${artifact.name} came through the v3 API`);
      assert.deepEqual(
        requests.filter((r) => r.operationId?.startsWith("twirp/") || r.operationId === "blob"),
        [],
        "the results service (v4) was never called",
      );
      const finalized = requests.filter(
        (r) => r.method === "PATCH" && r.operationId?.startsWith("pipelines/") && r.status === 200,
      );
      assert.ok(finalized.some((r) => r.path.includes("artifactName=loom-result")));
      assert.ok(finalized.some((r) => r.path.includes("artifactName=loom-bundle")));
      const downloads = requests.filter(
        (r) => r.operationId === "actions/download-artifact" && r.status === 302,
      );
      // A run that pushed its stage's work reported its outcome as the `loom result` check run
      // (GitHub Actions' own, through the job token on /api/v3): the App downloaded nothing for it.
      const reported = new Set(
        state.checkRuns
          .filter((r) => r.name === "loom result" && r.app === "github-actions[bot]")
          .map((r) => (JSON.parse(r.output.text ?? "{}") as { run_id?: number }).run_id),
      );
      assert.ok(reported.size > 0, "passing runs reported their outcome as a check run");
      for (const runId of reported)
        assert.ok(
          !downloads.some((r) =>
            state.artifacts.some((a) => a.runId === runId && r.path.includes(`/artifacts/${a.id}/zip`)),
          ),
          `the App downloaded no artifact of run ${runId}`,
        );
      // Any other run's result comes in its loom-publish (the publish job carries it), else in loom-result.
      for (const result of state.artifacts.filter(
        (a) => a.name === "loom-result" && !reported.has(a.runId),
      )) {
        const carrier =
          state.artifacts.find((a) => a.runId === result.runId && a.name === "loom-publish") ?? result;
        assert.ok(
          downloads.some((r) => r.path.includes(`/artifacts/${carrier.id}/zip`)),
          `the App downloaded ${carrier.name} ${carrier.id} of run ${result.runId}`,
        );
      }
    });

    it("b's recovery read the lost run's artifacts through the REST API at /api/v3 with the job token", () => {
      assert.ok(crashedRunId > 0);
      const read = e2e.emulator.requests.filter(
        (r) =>
          r.operationId === "actions/list-workflow-run-artifacts" &&
          r.path.includes(`/runs/${crashedRunId}/artifacts`) &&
          r.login === "github-actions[bot]",
      );
      assert.equal(read.length >= 1, true, e2e.describe());
    });

    it("made only requests GitHub Enterprise Server allows (REST under /api/v3, OpenAPI-valid)", () => {
      e2e.emulator.assertNoViolations();
      assert.deepEqual(e2e.emulator.runnerErrors, []);
    });
  },
);
