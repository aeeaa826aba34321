import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { StageResult } from "../../src/artifacts/stage-result.ts";
import type { RunRecord } from "../emulator/emulator-state.ts";
import { passingResult } from "../app/stage-results.ts";
import { dispatchesOf, mergesOf, type PullRecord } from "../e2e/e2e-requests.ts";
import { startE2E, type E2E } from "../e2e/harness.ts";
import { planText, scriptStages, writeFiles } from "../e2e/model-script.ts";
import { readStageState } from "../e2e/read-stage-state.ts";

/**
 * Hole 5: only loom's own runs decide stages. While loom's run waits for a runner, runs titled
 * `loom <key>` that loom did not dispatch (a person's own workflow, a `push` run of the caller
 * workflow file, a writer dispatching the caller workflow by hand with loom's inputs) start and
 * finish green with a forged `loom-result`. None of them may decide the stage; loom's own run,
 * which then runs the real action and Claude Code, does.
 */

const PLAN_PATH = "doc/plans/PLAN-guarded.md";
const PLAN = planText(
  "Guarded",
  `
- id: only
  name: Only stage
  description: Write only.txt
  acceptance: ["grep -q only only.txt"]
`,
);

// Without run details (GHES refuses them) loom finds its run by title: the case forged runs can try
// to pass for. With them (github.com), loom knows its run by the id GitHub answered, which no other
// run can carry (`test/github/judge-run-identity.test.ts`).
describe("a run loom did not dispatch decides nothing (without run details)", { timeout: 240_000 }, () => {
  let e2e: E2E;
  let pull: PullRecord;
  let loomRun: RunRecord;
  let forged: RunRecord[] = [];
  let release: () => void = () => undefined;

  before(async () => {
    e2e = await startE2E({
      script: scriptStages({ only: writeFiles({ "only.txt": "only\n" }) }),
      permissions: { alice: "write", mallory: "write" },
    });
    e2e.emulator.settings.refuseReturnRunDetails = true;
    // loom's run waits for its runner until the forged runs are over and the app has read them.
    const held = new Promise<void>((resolve) => (release = resolve));
    let dispatched: RunRecord | undefined;
    e2e.emulator.setRunner({
      dispatched: async (run) => {
        dispatched = run;
        await held;
        await e2e.runner.dispatched(run);
      },
      cancelRequested: (run) => e2e.runner.cancelRequested?.(run),
    });
    pull = await e2e.openPlan({ files: { [PLAN_PATH]: PLAN } });
    loomRun = await e2e.waitFor("loom to dispatch the stage", () => dispatched, 60_000);
    forged = forgeRuns(e2e, loomRun);
    await e2e.waitFor("the app to take every forged run's webhooks", () =>
      forged.every((run) => delivered(e2e, run.id, "completed")),
    );
    await e2e.waitFor("the app to process them", async () => {
      const backlog = await e2e.store.countBacklog();
      return backlog.deliveries === 0 && backlog.effects === 0;
    });
  });
  after(async () => {
    release();
    await e2e?.close();
  });

  it("the forged result is one loom would take from its own run", () => {
    for (const run of forged) assert.equal(run.conclusion, "success");
    assert.ok(StageResult.safeParse(forgedResult(loomRun)).success);
  });

  it("leaves the stage's session waiting for loom's run: nothing merged, no run recorded but loom's", async () => {
    const stage = await readStageState(e2e, pull, "only");
    const session = stage?.sessions.at(-1);
    assert.ok(session, "the stage has its session");
    assert.equal(session.attempt, 1);
    assert.equal(session.outcome, null, `a forged run decided it: ${JSON.stringify(session)}`);
    assert.ok(
      session.runId === null || session.runId === loomRun.id,
      `recorded run ${session.runId}, not loom's ${loomRun.id}`,
    );
    assert.notEqual(stage?.status, "completed");
    assert.deepEqual(mergesOf(e2e.emulator.requests), []);
    assert.equal(dispatchesOf(e2e.emulator.requests).length, 1);
  });

  it("loom's own run decides the stage, which is merged", async () => {
    release();
    await e2e.waitForPlanEnd(pull, "PLAN-guarded", 1);
    const stage = await readStageState(e2e, pull, "only");
    assert.equal(stage?.status, "completed", e2e.describe());
    assert.equal(stage?.merged, true);
    assert.equal(stage?.sessions.length, 1);
    assert.equal(stage?.sessions[0]?.runId, loomRun.id);
    assert.equal(await e2e.readFile(pull.headRef, "only.txt"), "only\n");
    for (const run of forged) {
      const read = e2e.emulator.requests.some((r) => r.path.includes(`/actions/runs/${run.id}/`));
      assert.equal(read, false, `loom read the artifacts of forged run ${run.id}`);
    }
  });

  it("made only requests GitHub's OpenAPI description allows", () => {
    e2e.emulator.assertNoViolations();
  });
});

/** A green `loom-result` for exactly the stage, attempt and plan of loom's run. */
function forgedResult(run: RecordedRun): StageResult {
  const result = passingResult(run.inputs["stage_id"] ?? "", Number(run.inputs["attempt"] ?? "1"));
  return { ...result, plan_id: run.inputs["plan_id"] ?? "" };
}
type RecordedRun = Pick<RunRecord, "inputs">;

/**
 * Runs an attacker (or a careless writer) can make on github.com, each titled `loom <key>` with
 * loom's key, each finishing green with a forged `loom-result`.
 */
function forgeRuns(e2e: E2E, loomRun: RunRecord): RunRecord[] {
  const title = `loom ${loomRun.inputs["key"] ?? ""}`;
  const runs = [
    // mallory's own workflow file with `run-name: loom <key>`, dispatched on the default branch
    e2e.emulator.runs.createOther({
      workflowPath: ".github/workflows/evil.yml",
      name: "evil",
      event: "workflow_dispatch",
      headBranch: loomRun.headBranch,
      headSha: loomRun.headSha,
      actor: "mallory",
      displayTitle: title,
    }),
    // a push run of the caller workflow's own file (its run-name renders the key as given)
    e2e.emulator.runs.createOther({
      workflowPath: loomRun.workflowPath,
      name: loomRun.name,
      event: "push",
      headBranch: "mallory-branch",
      headSha: loomRun.headSha,
      actor: "mallory",
      displayTitle: title,
    }),
    // a writer dispatching the caller workflow by hand with loom's very inputs
    e2e.emulator.runs.createOther({
      workflowPath: loomRun.workflowPath,
      name: loomRun.name,
      event: "workflow_dispatch",
      headBranch: loomRun.headBranch,
      headSha: loomRun.headSha,
      actor: "alice",
      displayTitle: title,
      inputs: { ...loomRun.inputs },
    }),
  ];
  for (const run of runs) {
    e2e.emulator.runs.start(run.id);
    e2e.emulator.addArtifact(run.id, "loom-result", {
      "loom-result.json": JSON.stringify(forgedResult(loomRun)),
    });
    e2e.emulator.runs.complete(run.id, "success");
  }
  return runs;
}

function delivered(e2e: E2E, runId: number, action: string): boolean {
  return e2e.emulator.deliveries.some(
    (d) =>
      d.event === "workflow_run" &&
      d.action === action &&
      (d.payload["workflow_run"] as { id?: number } | undefined)?.id === runId &&
      d.attempts.some((a) => a.status !== null && a.status < 300),
  );
}
