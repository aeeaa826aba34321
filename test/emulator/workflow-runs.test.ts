import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import type { RunRecord } from "./emulator-state.ts";
import { startWithClient, statusOf, type Client } from "./emulator-fixture.ts";
import type { Emulator } from "./start-emulator.ts";

const repo = { owner: "acme", repo: "widgets" };
const callerWorkflow = await readFile(new URL("../../examples/loom.yml", import.meta.url), "utf8");

function inputs(key: string): Record<string, string> {
  return {
    key,
    plan_path: "doc/plans/PLAN-x.md",
    plan_id: "PLAN-x",
    stage_id: "a",
    attempt: "1",
    kind: "stage",
    branch: "loom/pr-7/PLAN-x/a",
    base: "feature",
    previous_run_id: "",
  };
}

describe("workflow dispatch, runs and artifacts", () => {
  let emulator: Emulator;
  let octokit: Client;
  const dispatched: RunRecord[] = [];
  let scratch: string;
  before(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), "emulator-artifacts-"));
    ({ emulator, octokit } = await startWithClient({
      repos: [
        {
          owner: "acme",
          name: "widgets",
          files: { "README.md": "hi\n", ".github/workflows/loom.yml": callerWorkflow },
        },
      ],
      runner: {
        dispatched: (run) => {
          dispatched.push(run);
          emulator.runs.start(run.id);
          emulator.addArtifact(run.id, "loom-result", {
            "loom-result.json": JSON.stringify({ key: run.inputs["key"] }),
          });
          emulator.runs.complete(run.id, "success");
        },
      },
    }));
  });
  after(async () => {
    await emulator.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it("returns the run id with return_run_details, renders run-name from inputs, and hands the run to the runner", async () => {
    const response = await octokit.request(
      "POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches",
      {
        ...repo,
        workflow_id: "loom.yml",
        ref: "main",
        inputs: inputs("loom:PLAN-x:a:1"),
        return_run_details: true,
      } as never,
    );
    const data = (
      response as { status: number; data: { workflow_run_id: number; run_url: string; html_url: string } }
    ).data;
    assert.equal(response.status, 200);
    await emulator.settle();
    assert.equal(dispatched.length, 1);
    assert.equal(dispatched[0]?.id, data.workflow_run_id);
    assert.equal(dispatched[0]?.displayTitle, "loom loom:PLAN-x:a:1");
    assert.equal(dispatched[0]?.inputs["branch"], "loom/pr-7/PLAN-x/a");
    const { data: run } = await octokit.rest.actions.getWorkflowRun({
      ...repo,
      run_id: data.workflow_run_id,
    });
    assert.equal(run.status, "completed");
    assert.equal(run.conclusion, "success");
    const { data: list } = await octokit.rest.actions.listWorkflowRuns({
      ...repo,
      workflow_id: "loom.yml",
      event: "workflow_dispatch",
      branch: "main",
      per_page: 100,
    });
    assert.deepEqual(
      list.workflow_runs.map((r) => r.display_title),
      ["loom loom:PLAN-x:a:1"],
    );
    const actions = emulator.deliveries.filter((d) => d.event === "workflow_run").map((d) => d.action);
    assert.deepEqual(actions, ["requested", "in_progress", "completed"]);
  });

  it("downloads an artifact through a one-time 302 URL as a real zip", async () => {
    const run = dispatched[0]!;
    const { data } = await octokit.rest.actions.listWorkflowRunArtifacts({ ...repo, run_id: run.id });
    assert.deepEqual(
      data.artifacts.map((a) => a.name),
      ["loom-result"],
    );
    const artifact = data.artifacts[0]!;
    const download = await octokit.rest.actions.downloadArtifact({
      ...repo,
      artifact_id: artifact.id,
      archive_format: "zip",
    });
    const zipFile = path.join(scratch, "a.zip");
    await writeFile(zipFile, Buffer.from(download.data as ArrayBuffer));
    const { stdout } = await promisify(execFile)("unzip", ["-p", zipFile, "loom-result.json"]);
    assert.deepEqual(JSON.parse(stdout), { key: "loom:PLAN-x:a:1" });

    const redirect = await fetch(`${emulator.url}/repos/acme/widgets/actions/artifacts/${artifact.id}/zip`, {
      redirect: "manual",
      headers: { authorization: "token x" },
    });
    assert.equal(redirect.status, 302);
    const location = redirect.headers.get("location")!;
    assert.equal((await fetch(location)).status, 200);
    assert.equal((await fetch(location)).status, 404, "a download URL works once");
  });

  it("answers 204 without return_run_details, and 422 for it when told to act like an old GHES", async () => {
    const plain = await octokit.rest.actions.createWorkflowDispatch({
      ...repo,
      workflow_id: "loom.yml",
      ref: "main",
      inputs: inputs("k2"),
    });
    assert.equal(plain.status, 204);
    emulator.settings.refuseReturnRunDetails = true;
    const refused = await statusOf(
      octokit.request("POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches", {
        ...repo,
        workflow_id: "loom.yml",
        ref: "main",
        inputs: inputs("k3"),
        return_run_details: true,
      } as never),
    );
    emulator.settings.refuseReturnRunDetails = false;
    assert.equal(refused?.status, 422);
    await emulator.settle();
    assert.deepEqual(
      dispatched.map((r) => r.displayTitle),
      ["loom loom:PLAN-x:a:1", "loom k2"],
    );
  });

  it("refuses missing inputs, unknown inputs, unknown workflows and unknown refs like GitHub", async () => {
    const { key: _key, ...noKey } = inputs("x");
    const cases: [unknown, number, RegExp][] = [
      [{ workflow_id: "loom.yml", ref: "main", inputs: noKey }, 422, /Required input 'key'/],
      [
        { workflow_id: "loom.yml", ref: "main", inputs: { ...inputs("x"), extra: "1" } },
        422,
        /Unexpected inputs/,
      ],
      [{ workflow_id: "nope.yml", ref: "main", inputs: inputs("x") }, 404, /Not Found/],
      [{ workflow_id: "loom.yml", ref: "no-branch", inputs: inputs("x") }, 422, /No ref found/],
    ];
    for (const [params, status, message] of cases) {
      const failure = await statusOf(
        octokit.rest.actions.createWorkflowDispatch({
          ...repo,
          ...(params as { workflow_id: string; ref: string }),
        }),
      );
      assert.equal(failure?.status, status);
      assert.match(failure?.message ?? "", message);
    }
  });

  it("cancels a queued run (no runner cancel hook: at once) and refuses to cancel a completed one", async () => {
    emulator.setRunner(null);
    await octokit.rest.actions.createWorkflowDispatch({
      ...repo,
      workflow_id: "loom.yml",
      ref: "main",
      inputs: inputs("k4"),
    });
    const { data } = await octokit.rest.actions.listWorkflowRunsForRepo({ ...repo, status: "queued" });
    const id = data.workflow_runs[0]!.id;
    assert.equal((await octokit.rest.actions.cancelWorkflowRun({ ...repo, run_id: id })).status, 202);
    assert.equal(emulator.runs.find(id).conclusion, "cancelled");
    assert.equal(
      (await statusOf(octokit.rest.actions.cancelWorkflowRun({ ...repo, run_id: id })))?.status,
      409,
    );
    emulator.assertNoViolations();
    assert.deepEqual(emulator.runnerErrors, []);
  });
});
