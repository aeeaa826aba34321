import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { ProbotOctokit } from "probot";
import { isGhesServer } from "../../action/src/upload/create-job-artifacts.ts";
import { createRestArtifactReader } from "../../action/src/upload/create-rest-artifact-reader.ts";
import { PIPELINES_PREFIX } from "./pipelines-artifact-routes.ts";
import { startEmulator, type Emulator } from "./start-emulator.ts";

const CHILD = fileURLToPath(new URL("./artifact-upload-ghes-child.ts", import.meta.url));
/** Over the v3 client's 8 MiB chunk: uploaded in two chunks with Content-Range. */
const BIG = 9 * 1024 * 1024;
const Octokit = ProbotOctokit.defaults({ retry: { enabled: false }, throttle: { enabled: false } });

type ChildResult = { back?: unknown; error?: string };

describe("on GitHub Enterprise Server, the action's artifacts go through the artifact API v3", () => {
  let emulator: Emulator;
  let dir: string;
  let rest: InstanceType<typeof Octokit>;
  before(async () => {
    emulator = await startEmulator({
      ghes: true,
      repos: [
        {
          owner: "acme",
          name: "widgets",
          files: { ".github/workflows/w.yml": "on: workflow_dispatch\njobs: {}\n" },
        },
      ],
    });
    rest = new Octokit({ auth: { token: "x" }, baseUrl: `${emulator.url}/api/v3` });
    dir = await mkdtemp(path.join(tmpdir(), "emulator-upload-ghes-"));
  });
  after(async () => {
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function startRun(): Promise<number> {
    await rest.rest.actions.createWorkflowDispatch({
      owner: "acme",
      repo: "widgets",
      workflow_id: "w.yml",
      ref: "main",
    });
    const run = emulator.state.runs.at(-1)!;
    emulator.runs.start(run.id);
    return run.id;
  }

  async function runChild(env: Record<string, string>, name: string, bigBytes = 0): Promise<ChildResult> {
    const jobDir = path.join(dir, name);
    await mkdir(jobDir, { recursive: true });
    const { stdout } = await promisify(execFile)(process.execPath, [CHILD, jobDir, String(bigBytes)], {
      env: { PATH: process.env["PATH"] ?? "", ...env, RUNNER_TEMP: jobDir, GITHUB_WORKSPACE: jobDir },
      timeout: 60_000,
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }));
    return JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as ChildResult;
  }

  const listed = async (runId: number) =>
    (
      await rest.rest.actions.listWorkflowRunArtifacts({ owner: "acme", repo: "widgets", run_id: runId })
    ).data.artifacts
      .map((a) => a.name)
      .sort();

  it("a GHES job gets a GHES server URL, the API at /api/v3 and ACTIONS_RUNTIME_URL without a results service", async () => {
    const env = emulator.runnerEnv(await startRun());
    assert.equal(env["GITHUB_SERVER_URL"], emulator.url);
    assert.equal(env["GITHUB_API_URL"], `${emulator.url}/api/v3`);
    assert.equal(env["ACTIONS_RESULTS_URL"], undefined);
    assert.equal(env["ACTIONS_RUNTIME_URL"], `${emulator.url}${PIPELINES_PREFIX}`);
    for (const [url, ghes] of [
      ["https://github.com", false],
      ["https://acme.ghe.com", false],
      [emulator.url, true],
      ["https://ghes.acme.internal", true],
    ] as const)
      assert.equal(isGhesServer(url), ghes, url);
  });

  it("uploads in chunks, downloads within the run, and the REST API lists the artifacts only once the run completed", async () => {
    const runId = await startRun();
    const result = await runChild(emulator.runnerEnv(runId), "upload", BIG);
    assert.deepEqual(result, { back: { ok: true, runId } });
    const puts = emulator.requests.filter(
      (r) => r.method === "PUT" && r.operationId?.startsWith("pipelines/"),
    );
    assert.ok(puts.length >= 3, "loom-result in one chunk, the 9 MiB file in two");
    assert.ok(emulator.requests.some((r) => r.method === "PATCH" && r.status === 200));
    assert.deepEqual(await listed(runId), [], "GHES lists no v3 artifact of a run in progress");
    emulator.runs.complete(runId, "success");
    assert.deepEqual(await listed(runId), ["loom-bundle", "loom-result"]);
    // Another run (a recovery) reads them through the REST API, as the action does on GHES.
    const reader = createRestArtifactReader({ apiUrl: `${emulator.url}/api/v3`, retryBaseMs: 0 });
    const source = { runId, token: emulator.tokenFor("github-actions[bot]"), owner: "acme", repo: "widgets" };
    const artifacts = await reader.list(source);
    const bundle = artifacts.find((a) => a.name === "loom-bundle");
    assert.ok(bundle);
    await reader.download(source, bundle.id, path.join(dir, "recovery"));
    const bytes = await readFile(path.join(dir, "recovery", "bundle.bin"));
    assert.equal(bytes.length, BIG);
    emulator.assertNoViolations();
  });

  it("refuses a runtime token that is not the run's, and one whose job has ended (401)", async () => {
    const runId = await startRun();
    const other = await startRun();
    const env = emulator.runnerEnv(runId);
    const wrong = await runChild(
      { ...env, ACTIONS_RUNTIME_TOKEN: emulator.runnerEnv(other)["ACTIONS_RUNTIME_TOKEN"] ?? "" },
      "wrong",
    );
    assert.match(wrong.error ?? "", /Create Artifact Container failed: Artifact service responded with 401/);
    emulator.runs.complete(runId, "success");
    const ended = await runChild(env, "ended");
    assert.match(ended.error ?? "", /responded with 401/);
  });

  it("refuses a chunk whose Content-Range does not match its bytes or skips ahead (400)", async () => {
    const runId = await startRun();
    const env = emulator.runnerEnv(runId);
    const auth = { authorization: `Bearer ${env["ACTIONS_RUNTIME_TOKEN"]}` };
    const base = `${env["ACTIONS_RUNTIME_URL"]}_apis/pipelines/workflows/${runId}/artifacts?api-version=6.0-preview`;
    const created = await fetch(base, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ Type: "actions_storage", Name: "loom-result" }),
    });
    assert.equal(created.status, 201);
    const { fileContainerResourceUrl } = (await created.json()) as { fileContainerResourceUrl: string };
    const put = (range: string, body: string) =>
      fetch(`${fileContainerResourceUrl}?itemPath=loom-result%2Fa.json`, {
        method: "PUT",
        headers: { ...auth, "content-type": "application/octet-stream", "content-range": range },
        body,
      });
    assert.equal((await put("bytes 0-9/4", "{}")).status, 400);
    assert.equal((await put("bytes 2-3/4", "{}")).status, 400, "skips bytes 0-1");
    assert.equal((await put("items 0-1/2", "{}")).status, 400);
    assert.equal((await put("bytes 0-1/2", "{}")).status, 201);
    const noVersion = await fetch(base.replace("?api-version=6.0-preview", ""), { headers: auth });
    assert.equal(noVersion.status, 400);
  });

  it("counts a request to the results service (artifact API v4) as a violation: GHES has none", async () => {
    const response = await fetch(
      `${emulator.url}/twirp/github.actions.results.api.v1.ArtifactService/CreateArtifact`,
      {
        method: "POST",
        body: "{}",
      },
    );
    assert.equal(response.status, 404);
    assert.match(emulator.violations.at(-1)?.errors.join() ?? "", /no results service/);
    emulator.violations.length = 0;
  });
});
