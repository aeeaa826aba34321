import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createClient } from "./emulator-fixture.ts";
import { startEmulator, type Emulator } from "./start-emulator.ts";

const CHILD = fileURLToPath(new URL("./artifact-upload-child.ts", import.meta.url));

describe("artifacts uploaded from a job with the action's real @actions/artifact client", () => {
  let emulator: Emulator;
  let dir: string;
  before(async () => {
    emulator = await startEmulator({
      repos: [
        {
          owner: "acme",
          name: "widgets",
          files: { ".github/workflows/w.yml": "on: workflow_dispatch\njobs: {}\n" },
        },
      ],
    });
    dir = await mkdtemp(path.join(tmpdir(), "emulator-upload-"));
  });
  after(async () => {
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("uploads through the results service, lists and downloads by run id, and the app sees it over REST", async () => {
    const octokit = createClient(emulator);
    await octokit.rest.actions.createWorkflowDispatch({
      owner: "acme",
      repo: "widgets",
      workflow_id: "w.yml",
      ref: "main",
    });
    const run = emulator.state.runs.at(-1)!;
    const env = {
      ...process.env,
      ...emulator.runnerEnv(run.id, { actions: "read" }),
      RUNNER_TEMP: dir,
      GITHUB_WORKSPACE: dir,
    };
    const { stdout } = await promisify(execFile)(process.execPath, [CHILD, dir], { env, timeout: 60_000 });
    const result = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as {
      listed: string[];
      back: unknown;
    };
    assert.deepEqual(result, { listed: ["loom-result"], back: { ok: true, runId: run.id } });
    const { data } = await octokit.rest.actions.listWorkflowRunArtifacts({
      owner: "acme",
      repo: "widgets",
      run_id: run.id,
    });
    assert.deepEqual(
      data.artifacts.map((a) => a.name),
      ["loom-result"],
    );
    assert.ok(emulator.requests.some((r) => r.operationId === "twirp/FinalizeArtifact" && r.status === 200));
    emulator.assertNoViolations();
  });
});
