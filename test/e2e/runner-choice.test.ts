import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { createClient, type Client } from "../emulator/emulator-fixture.ts";
import type { Emulator } from "../emulator/start-emulator.ts";
import { startWorkflowEmulator } from "../workflows/workflow-emulator.ts";
import type { RunnerSpec } from "../workflows/executor/runs-on.ts";
import { planText, scriptStages, writeFiles } from "./model-script.ts";
import {
  createStageRunner,
  describeRunLogs,
  type RunnerEvent,
  type StageRunner,
} from "./runner/create-stage-runner.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const example = (name: string): string => readFileSync(path.join(ROOT, "examples", name), "utf8");
const PLAN_PATH = "doc/plans/PLAN-runners.md";
const PLAN = planText(
  "Runners",
  `- id: a\n  name: A\n  description: Write a.txt\n  acceptance: ["test -f a.txt"]`,
);

/** The registered runners: a self-hosted machine, an ARC runner scale set's runner, a runner of the group `larger`. */
const RUNNERS: RunnerSpec[] = [
  { name: "build-01", group: "Default", labels: ["self-hosted", "Linux", "X64"], environment: "self-hosted" },
  {
    name: "arc-runner-set-7kq2p-runner-x9z4d",
    group: "Default",
    labels: ["arc-runner-set"],
    environment: "self-hosted",
  },
  { name: "larger-01", group: "larger", labels: ["self-hosted", "linux"], environment: "self-hosted" },
];

/**
 * The callers of `examples/`, one per kind of self-hosted runner (a label of a GitHub-hosted image,
 * examples/loom.yml, is what every other e2e run uses; diamond-plan.test.ts checks its jobs), each in its own workflow file. The self-hosted
 * example's `setup` (corepack, pnpm install) needs the network: here it prints where it runs instead.
 * No example pins a runner group: its caller is loom.yml with the `{group, labels}` form added.
 */
const CALLERS: Record<string, string> = {
  "self-hosted.yml": example("loom-self-hosted.yml").replace(
    /^ {6}setup: .*$/m,
    '      setup: echo "set up on $RUNNER_NAME"',
  ),
  "arc.yml": example("loom-arc.yml"),
  "group.yml": example("loom.yml").replace(
    'with: { request: "${{ toJSON(inputs) }}" }',
    `with: { request: "\${{ toJSON(inputs) }}", runs-on: '{"group":"larger","labels":["linux"]}' }`,
  ),
  "nowhere.yml": example("loom-self-hosted.yml").replace(
    '\'["self-hosted", "linux", "x64"]\'',
    '\'["self-hosted", "arm64"]\'',
  ),
};

describe(
  "runs-on: each kind of runner a caller can name gets the stage's jobs, as GitHub's jobs API shows them",
  { timeout: 170_000 },
  () => {
    let emulator: Emulator;
    let runner: StageRunner;
    let octokit: Client;
    let workDir: string;
    const completed = new Map<number, string>();
    const runOf = new Map<string, number>();

    const dispatch = async (file: string, pull: number): Promise<number> => {
      const { data } = await octokit.rest.actions.createWorkflowDispatch({
        owner: "acme",
        repo: "widgets",
        workflow_id: file,
        ref: "main",
        inputs: {
          key: `k-${file}`,
          plan_path: PLAN_PATH,
          plan_id: "PLAN-runners",
          stage_id: "a",
          attempt: "1",
          kind: "stage",
          branch: `loom/pr-${pull}/PLAN-runners/a`,
          base: "main",
        },
        return_run_details: true,
      });
      return (data as unknown as { workflow_run_id: number }).workflow_run_id;
    };
    const jobs = async (runId: number) =>
      (await octokit.rest.actions.listJobsForWorkflowRun({ owner: "acme", repo: "widgets", run_id: runId }))
        .data.jobs;
    const waitUntil = async <T>(
      what: string,
      check: () => Promise<T | undefined> | T | undefined,
    ): Promise<T> => {
      for (let i = 0; i < 600; i++) {
        const value = await check();
        if (value !== undefined) return value;
        if (emulator.runnerErrors.length > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      throw new Error(
        `timed out waiting for ${what}: ${emulator.runnerErrors.map((e) => String(e.cause)).join("\n")}`,
      );
    };

    before(async () => {
      workDir = await mkdtemp(path.join(tmpdir(), "loom-runners-"));
      emulator = await startWorkflowEmulator(CALLERS, { [PLAN_PATH]: PLAN });
      octokit = createClient(emulator);
      runner = createStageRunner({
        emulator,
        workDir,
        script: scriptStages({ a: writeFiles({ "a.txt": "a\n" }) }),
        runners: RUNNERS,
        onEvent: (event: RunnerEvent) => {
          if (event.type === "run.completed") completed.set(event.runId, event.conclusion);
        },
      });
      emulator.setRunner(runner);
      for (const [pull, file] of ["self-hosted.yml", "arc.yml", "group.yml", "nowhere.yml"].entries())
        runOf.set(file, await dispatch(file, pull + 1));
      await waitUntil("the three runs that have a runner", () =>
        ["self-hosted.yml", "arc.yml", "group.yml"].every((f) => completed.has(runOf.get(f) ?? 0))
          ? true
          : undefined,
      );
    });
    after(async () => {
      runner?.stopAll();
      await emulator?.close();
      await rm(workDir, { recursive: true, force: true });
    });

    const expectJobs = async (file: string, labels: string[], runnerName: RegExp, group: string) => {
      const runId = runOf.get(file) ?? 0;
      assert.equal(completed.get(runId), "success", describeRunLogs(runner, runId, 30));
      const found = await jobs(runId);
      assert.deepEqual(
        found.map((j) => [j.name, j.status, j.conclusion]),
        [
          ["stage / run", "completed", "success"],
          ["stage / publish", "completed", "success"],
        ],
      );
      for (const job of found) {
        assert.deepEqual(job.labels, labels);
        assert.match(job.runner_name ?? "", runnerName);
        assert.equal(job.runner_group_name, group);
      }
      assert.ok(
        found[0]?.steps?.some((s) => s.name === "Run the stage session" && s.conclusion === "success"),
      );
    };

    it("a JSON list of labels (examples/loom-self-hosted.yml) runs on the self-hosted runner holding them all, setup included", async () => {
      await expectJobs("self-hosted.yml", ["self-hosted", "linux", "x64"], /^build-01$/, "Default");
      assert.match(runner.logs.get(runOf.get("self-hosted.yml") ?? 0)?.["run"] ?? "", /set up on build-01/);
    });

    it("an ARC runner scale set's name (examples/loom-arc.yml) runs on a runner of that scale set", async () => {
      await expectJobs("arc.yml", ["arc-runner-set"], /^arc-runner-set-\w+-runner-\w+$/, "Default");
    });

    it("a {group, labels} object runs on a runner of that group", async () => {
      await expectJobs("group.yml", ["linux"], /^larger-01$/, "larger");
    });

    it("labels no runner holds leave the job queued with them until the run is cancelled", async () => {
      const runId = runOf.get("nowhere.yml") ?? 0;
      const queued = await jobs(runId);
      assert.deepEqual(
        queued.map((j) => [j.name, j.status, j.labels, j.runner_name]),
        [["stage / run", "queued", ["self-hosted", "arm64"], null]],
      );
      await octokit.rest.actions.cancelWorkflowRun({ owner: "acme", repo: "widgets", run_id: runId });
      assert.equal(await waitUntil("the cancelled run", () => completed.get(runId)), "cancelled");
      assert.deepEqual(
        (await jobs(runId)).map((j) => [j.name, j.conclusion]),
        [
          ["stage / run", "cancelled"],
          ["stage / publish", "skipped"],
        ],
      );
      emulator.assertNoViolations();
    });
  },
);
