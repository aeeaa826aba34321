import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, it } from "node:test";
import { readZip } from "../../app/github/read-zip.ts";
import { StageResult } from "../../src/artifacts/stage-result.ts";
import type { RecordedRequest } from "../support/fake-model-server.ts";
import { dispatchesOf, type PullRecord } from "./e2e-requests.ts";
import { startE2E, type E2E } from "./harness.ts";
import { planText, scriptStages, writeFiles } from "./model-script.ts";
import { readStageState } from "./read-stage-state.ts";
import type { RunnerEvent, StageJob } from "./runner/create-stage-runner.ts";

const PLAN_PATH = "doc/plans/PLAN-stall.md";
const PLAN = planText(
  "Stall",
  `
- id: stall
  name: Stalling model
  description: Write notes.txt, then stall.txt
  acceptance: ["grep -q finished stall.txt"]
`,
);
/** The smallest timeout `.github/loom.yml` accepts. */
const HEARTBEAT_TIMEOUT_S = 60;
/** Far longer than the test runs: the recovery starts only when the test moves the app's clock. */
const BACKOFF_BASE_S = 120;
const QUIET_MS = 2_500;
const SHORT_OF_DUE_MS = 15_000;
/** The first session's only work: the handoff has to carry it to the second. */
const FIRST_FILE = "notes-from-attempt-1.txt";

describe(
  "a stalled session is found by stale heartbeats, cancelled like GitHub does, and recovered with its handoff",
  { timeout: 170_000 },
  () => {
    let e2e: E2E;
    let pull: PullRecord;
    const started = new Map<number, StageJob>();
    const completed = new Map<number, string>();
    const modelRequests = new Map<number, RecordedRequest[]>();
    before(async () => {
      e2e = await startE2E({
        script: scriptStages({
          // Attempt 1 writes a file (a tool use: a heartbeat goes out), then the model never answers.
          "stall:1": (job) => [
            ...writeFiles({ [FIRST_FILE]: "half of the work\n" })(job).slice(0, 1),
            { blocks: [{ type: "text", text: "unreachable" }], stall: "forever" },
          ],
          "stall:2": writeFiles({ [FIRST_FILE]: "half of the work\n", "stall.txt": "finished\n" }),
        }),
        loomConfig: [
          "workflow: loom.yml",
          `heartbeat_timeout_seconds: ${HEARTBEAT_TIMEOUT_S}`,
          "retry:",
          "  max_attempts: 3",
          `  backoff_base_seconds: ${BACKOFF_BASE_S}`,
          "",
        ].join("\n"),
        onRunnerEvent: (event: RunnerEvent) => {
          if (event.type === "run.started") started.set(event.runId, event.job);
          if (event.type === "run.completed") completed.set(event.runId, event.conclusion);
          if (event.type === "job.finished" && event.modelRequests)
            modelRequests.set(event.runId, event.modelRequests);
        },
      });
      pull = await e2e.openPlan({ files: { [PLAN_PATH]: PLAN } });
    });
    after(async () => {
      await e2e?.close();
    });

    const cancels = (): string[] =>
      e2e.emulator.requests
        .filter((r) => r.operationId === "actions/cancel-workflow-run")
        .map((r) => `${r.method} ${r.path}`);
    let firstRunId = 0;

    it("cancels the run once its heartbeat is older than heartbeat_timeout_seconds on the app's clock", async () => {
      const first = await e2e.waitFor("attempt 1 to write its file", () =>
        [...started.values()].find(
          (job) => job.attempt === 1 && existsSync(path.join(job.workspace, FIRST_FILE)),
        ),
      );
      firstRunId = first.runId;
      const seen = await e2e.waitFor("the app to read a heartbeat of attempt 1", async () => {
        const session = (await readStageState(e2e, pull, "stall"))?.sessions[0];
        return session?.status === "running" && session.lastHeartbeat !== null ? session : undefined;
      });
      const deadline = seen.lastSeenAt + HEARTBEAT_TIMEOUT_S * 1000;

      e2e.clock.advance(deadline - e2e.clock.now() - SHORT_OF_DUE_MS);
      await sleep(QUIET_MS);
      assert.deepEqual(cancels(), [], "not cancelled while the heartbeat is younger than the timeout");

      e2e.clock.advance(deadline - e2e.clock.now() + 1_000);
      await e2e.waitFor("the app to cancel run 1", () => cancels().length > 0, 30_000);
      assert.deepEqual(cancels(), [`POST /repos/acme/widgets/actions/runs/${firstRunId}/cancel`]);
      const stage = await e2e.waitFor("attempt 1 to be marked hung", async () => {
        const state = await readStageState(e2e, pull, "stall");
        return state?.sessions[0]?.status === "hung" ? state : undefined;
      });
      assert.equal(stage.sessions[0]?.outcome, "hung");
      assert.match(stage.sessions[0]?.detail ?? "", /no heartbeat for \d+ s/);
    });

    it("the cancelled action stops its session and uploads loom-result with the handoff before it is killed", async () => {
      const conclusion = await e2e.waitFor("run 1 to end", () => completed.get(firstRunId), 30_000);
      assert.equal(conclusion, "cancelled");
      const log = e2e.runner.logs.get(firstRunId)?.["run"] ?? "";
      assert.match(log, /SIGINT received/, "the action heard GitHub's SIGINT");
      assert.equal(e2e.runner.logs.get(firstRunId)?.["publish"], undefined, "publish does not run");
      const artifact = e2e.emulator.state.artifacts.find(
        (a) => a.runId === firstRunId && a.name === "loom-result",
      );
      assert.ok(artifact, `run ${firstRunId} uploaded loom-result`);
      const zip = readZip(artifact.zip);
      assert.ok(zip.ok);
      const result = StageResult.parse(JSON.parse(zip.files.get("loom-result.json")?.toString("utf8") ?? ""));
      assert.equal(result.outcome, "cancelled");
      assert.equal(result.attempt, 1);
      assert.match(result.handoff ?? "", /Handoff: stage `stall`, attempt 1/);
      assert.match(result.handoff ?? "", new RegExp(`- ${FIRST_FILE.replaceAll(".", "\\.")}`));
      assert.doesNotMatch(JSON.stringify(result), /sk-ant-e2e-not-a-key/, "redacted");
    });

    it("dispatches attempt 2 as a recovery of run 1 once the backoff has passed on the app's clock", async () => {
      const retryAt = await e2e.waitFor("the retry to be scheduled", async () => {
        const stage = await readStageState(e2e, pull, "stall");
        return stage?.retryAt ?? undefined;
      });
      await sleep(QUIET_MS);
      assert.equal(dispatchesOf(e2e.emulator.requests).length, 1, "no recovery while the clock stands still");
      e2e.clock.advance(retryAt - e2e.clock.now() + 1_000);
      await e2e.waitFor(
        "attempt 2 to be dispatched",
        () => dispatchesOf(e2e.emulator.requests).length > 1,
        30_000,
      );
      const second = await e2e.waitFor("attempt 2 to start", () =>
        [...started.values()].find((job) => job.attempt === 2),
      );
      assert.equal(second.kind, "recovery");
      assert.equal(second.inputs["previous_run_id"], String(firstRunId));
    });

    it("the recovery session is given the first session's handoff and the plan ends green", async () => {
      await e2e.waitFor(
        "the plan's check run to succeed",
        async () =>
          (await e2e.checkRuns(pull)).find(
            (r) => r.name === "loom: PLAN-stall" && r.conclusion === "success",
          ),
        90_000,
      );
      const secondRunId = [...started.values()].find((job) => job.attempt === 2)?.runId ?? 0;
      const prompt = JSON.stringify(
        modelRequests.get(secondRunId)?.find((r) => r.kind === "main")?.body?.messages?.[0] ?? "",
      );
      assert.match(prompt, /Handoff: stage `stall`, attempt 1/, "the handoff is in the recovery's prompt");
      assert.match(prompt, /its run was cancelled/);
      assert.ok(
        prompt.includes(`Write ${FIRST_FILE}`),
        "the handoff names the first session's last tool use",
      );
      assert.equal(await e2e.readFile(pull.headRef, "stall.txt"), "finished\n");
      assert.equal(dispatchesOf(e2e.emulator.requests).length, 2);
    });

    it("made only requests GitHub's OpenAPI description allows", () => {
      e2e.emulator.assertNoViolations();
    });
  },
);
