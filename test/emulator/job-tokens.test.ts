import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { parse } from "yaml";
import { createClient, statusOf, type Client } from "./emulator-fixture.ts";
import { runGit } from "./run-git.ts";
import { startEmulator, type Emulator } from "./start-emulator.ts";
import { jobTokenPermissions } from "./token-permissions.ts";

/*
 * A job's GITHUB_TOKEN carries exactly its job's `permissions:` (FACTS.md; GitHub's "Permissions
 * required for GitHub Apps" says which permission each endpoint takes). loom's stage workflow
 * gives its two jobs what they need and no more; these tests read the permissions from the
 * workflow itself, so they hold for what users run.
 */
const STAGE = parse(
  await readFile(new URL("../../.github/workflows/loom-stage.yml", import.meta.url), "utf8"),
) as { jobs: Record<"run" | "publish", { permissions: Record<string, string> }> };
const RUN_JOB = STAGE.jobs.run.permissions;
const PUBLISH_JOB = STAGE.jobs.publish.permissions;

const repo = { owner: "acme", repo: "widgets" };
const INTEGRATION = { status: 403, message: "Resource not accessible by integration" };
const BAD_CREDENTIALS = { status: 401, message: "Bad credentials" };

describe("a job's GITHUB_TOKEN holds exactly its job's permissions", () => {
  let emulator: Emulator;
  let app: Client;
  let work: string;
  let runId: number;
  before(async () => {
    work = await mkdtemp(path.join(tmpdir(), "emulator-job-tokens-"));
    emulator = await startEmulator({
      repos: [
        {
          owner: "acme",
          name: "widgets",
          files: { ".github/workflows/w.yml": "on: workflow_dispatch\njobs: {}\n" },
        },
        { owner: "acme", name: "other", installationId: 4242 },
      ],
    });
    app = createClient(emulator);
    await emulator.as("alice").openPullRequest({ head: "feature", files: { "a.txt": "a\n" } });
    runId = await startRun();
  });
  after(async () => {
    await emulator.close();
    await rm(work, { recursive: true, force: true });
  });

  async function startRun(): Promise<number> {
    await app.rest.actions.createWorkflowDispatch({ ...repo, workflow_id: "w.yml", ref: "main" });
    const run = emulator.state.runs.at(-1)!;
    emulator.runs.start(run.id);
    emulator.addArtifact(run.id, "loom-result", { "loom-result.json": "{}" });
    return run.id;
  }

  function jobToken(permissions: Record<string, string> | undefined, run = runId): string {
    return emulator.runnerEnv(run, permissions)["GITHUB_TOKEN"] ?? "";
  }

  function authUrl(token: string): string {
    const url = new URL(emulator.cloneUrl());
    url.username = "x-access-token";
    url.password = token;
    return url.toString();
  }

  /** `git -c …` sending `token` with every request, as `actions/checkout` does (an extra header). */
  function withToken(token: string): string[] {
    const basic = Buffer.from(`x-access-token:${token}`).toString("base64");
    return ["-c", `http.extraheader=AUTHORIZATION: basic ${basic}`];
  }

  /** Clones `feature` with `token` into a fresh folder and commits a file there; the clone's path. */
  async function cloneAndCommit(token: string, name: string): Promise<string> {
    const into = path.join(work, name);
    const clone = await runGit(work, [
      ...withToken(token),
      "clone",
      "--quiet",
      "--branch",
      "feature",
      emulator.cloneUrl(),
      into,
    ]);
    assert.equal(clone.code, 0, clone.stderr);
    await writeFile(path.join(into, `${name}.txt`), `${name}\n`);
    const identity = ["-c", "user.name=job", "-c", "user.email=job@example.invalid"];
    await runGit(into, ["add", "."]);
    await runGit(into, [...identity, "commit", "--quiet", "-m", name]);
    return into;
  }

  it("the run job's token clones and reads the run's artifacts, but a push is refused as GitHub refuses it", async () => {
    const token = jobToken(RUN_JOB);
    const clone = await cloneAndCommit(token, "run-job");
    const job = createClient(emulator, token);
    const { data } = await job.rest.actions.listWorkflowRunArtifacts({ ...repo, run_id: runId });
    assert.deepEqual(
      data.artifacts.map((a) => a.name),
      ["loom-result"],
    );
    const artifactId = data.artifacts[0]?.id ?? 0;
    const download = await job.rest.actions.downloadArtifact({
      ...repo,
      artifact_id: artifactId,
      archive_format: "zip",
    });
    assert.equal(download.status, 200);
    const push = await runGit(clone, ["push", authUrl(token), "HEAD:refs/heads/loom/stolen"]);
    assert.notEqual(push.code, 0);
    assert.match(
      push.stderr,
      /^remote: Permission to acme\/widgets\.git denied to github-actions\[bot\]\.$/m,
    );
    const printed = `fatal: unable to access '${emulator.cloneUrl()}/': The requested URL returned error: 403`;
    assert.ok(push.stderr.includes(printed), push.stderr);
    assert.equal(await emulator.repo().git.readBranch("loom/stolen"), null);
  });

  it("the publish job's token pushes a branch and creates a check run", async () => {
    const token = jobToken(PUBLISH_JOB);
    const clone = await cloneAndCommit(token, "publish-job");
    const push = await runGit(clone, [
      ...withToken(token),
      "push",
      "--quiet",
      "origin",
      "HEAD:refs/heads/loom/pushed",
    ]);
    assert.equal(push.code, 0, push.stderr);
    const head = await emulator.repo().git.readBranch("loom/pushed");
    assert.ok(head);
    const { status } = await createClient(emulator, token).rest.checks.create({
      ...repo,
      name: "loom result",
      head_sha: head,
    });
    assert.equal(status, 201);
  });

  it("refuses what the run and publish jobs were not given (403 Resource not accessible by integration)", async () => {
    const head = (await emulator.repo().git.readBranch("feature")) ?? "";
    const { data: appRun } = await app.rest.checks.create({ ...repo, name: "loom: a", head_sha: head });
    const { data: comment } = await app.rest.issues.createComment({
      ...repo,
      issue_number: 1,
      body: "status",
    });
    const calls: Record<string, (job: Client) => Promise<unknown>> = {
      "create a check run": (job) => job.rest.checks.create({ ...repo, name: "loom result", head_sha: head }),
      "update a check run": (job) =>
        job.rest.checks.update({ ...repo, check_run_id: appRun.id, name: "forged" }),
      "dispatch a workflow": (job) =>
        job.rest.actions.createWorkflowDispatch({ ...repo, workflow_id: "w.yml", ref: "main" }),
      "cancel a run": (job) => job.rest.actions.cancelWorkflowRun({ ...repo, run_id: runId }),
      comment: (job) => job.rest.issues.createComment({ ...repo, issue_number: 1, body: "hi" }),
      "edit a comment": (job) =>
        job.rest.issues.updateComment({ ...repo, comment_id: comment.id, body: "x" }),
      label: (job) => job.rest.issues.addLabels({ ...repo, issue_number: 1, labels: ["loom:run"] }),
      "create a ref": (job) => job.rest.git.createRef({ ...repo, ref: "refs/heads/loom/api", sha: head }),
      "list secrets": (job) => job.rest.actions.listRepoSecrets(repo),
      "read the secrets' public key": (job) => job.rest.actions.getRepoPublicKey(repo),
    };
    const refused: Record<"run" | "publish", string[]> = {
      run: Object.keys(calls),
      publish: ["dispatch a workflow", "cancel a run", "comment", "edit a comment", "label"],
    };
    refused.publish.push("list secrets", "read the secrets' public key");
    for (const [name, permissions] of [
      ["run", RUN_JOB],
      ["publish", PUBLISH_JOB],
    ] as const) {
      const job = createClient(emulator, jobToken(permissions));
      for (const what of refused[name])
        assert.deepEqual(await statusOf(calls[what]!(job)), INTEGRATION, `the ${name} job may not ${what}`);
    }
    assert.deepEqual(
      emulator.state.comments.map((c) => c.body),
      ["status"],
      "a refused write changes nothing",
    );
    const publish = createClient(emulator, jobToken(PUBLISH_JOB));
    const foreign = await statusOf(calls["update a check run"]!(publish));
    assert.equal(foreign?.status, 403, "checks: write, but the check run is the App's");
    assert.match(foreign?.message ?? "", /can only be modified by the GitHub App that created it/);
  });

  it("never reads or lists secrets, whatever the job's permissions", async () => {
    const everything = Object.fromEntries(
      [
        "actions",
        "checks",
        "contents",
        "deployments",
        "issues",
        "packages",
        "pages",
        "pull-requests",
        "statuses",
      ].map((scope) => [scope, "write"]),
    );
    const job = createClient(emulator, jobToken(everything));
    assert.deepEqual(await statusOf(job.rest.actions.listRepoSecrets(repo)), INTEGRATION);
    assert.deepEqual(
      await statusOf(job.rest.actions.getRepoSecret({ ...repo, secret_name: "ANTHROPIC_API_KEY" })),
      INTEGRATION,
    );
    assert.throws(() => jobToken({ secrets: "read" }), /GitHub refuses the job's permissions/);
  });

  it("works in its run's repository only, REST and git", async () => {
    const token = jobToken({ contents: "write", actions: "read" });
    const other = { owner: "acme", repo: "other" };
    const refused = await statusOf(
      createClient(emulator, token).rest.repos.getContent({ ...other, path: "README.md" }),
    );
    assert.equal(refused?.status, 404);
    const into = path.join(work, "other");
    const clone = await runGit(work, [...withToken(token), "clone", emulator.cloneUrl("acme/other"), into]);
    assert.notEqual(clone.code, 0);
    assert.match(clone.stderr, /^remote: Repository not found\.$/m);
  });

  it("stops working when its job ends, and all of a run's when the run completes (401 Bad credentials)", async () => {
    const ended = jobToken(RUN_JOB);
    emulator.endJob(ended);
    assert.deepEqual(await statusOf(createClient(emulator, ended).rest.repos.get(repo)), BAD_CREDENTIALS);
    const git = await runGit(work, [
      ...withToken(ended),
      "clone",
      emulator.cloneUrl(),
      path.join(work, "ended"),
    ]);
    assert.notEqual(git.code, 0);
    assert.equal(emulator.requests.at(-1)?.status, 401, git.stderr);
    const run = await startRun();
    const tokens = [jobToken(RUN_JOB, run), jobToken(PUBLISH_JOB, run)];
    await createClient(emulator, tokens[0]).rest.repos.get(repo);
    emulator.runs.complete(run, "success");
    for (const token of tokens)
      assert.deepEqual(await statusOf(createClient(emulator, token).rest.repos.get(repo)), BAD_CREDENTIALS);
  });

  it("without `permissions:` holds GitHub's restricted default: contents read, nothing of Actions", async () => {
    const token = jobToken(undefined);
    await cloneAndCommit(token, "default-job");
    const job = createClient(emulator, token);
    assert.deepEqual(
      await statusOf(job.rest.actions.listWorkflowRunArtifacts({ ...repo, run_id: runId })),
      INTEGRATION,
    );
    const none = createClient(emulator, jobToken({}));
    assert.deepEqual(await statusOf(none.rest.repos.getContent({ ...repo, path: "README.md" })), INTEGRATION);
    assert.equal((await none.rest.repos.get(repo)).status, 200, "metadata is always readable");
    emulator.assertNoViolations();
  });
});

describe("a job's `permissions:` as GitHub's own workflow schema takes them", () => {
  it("refuses the names and levels GitHub's parser refuses, and always adds metadata: read", () => {
    const refusedByGitHub: Record<string, string>[] = [
      { "id-token": "read" },
      { models: "write" },
      { metadata: "read" },
      { secrets: "read" },
    ];
    for (const refused of refusedByGitHub)
      assert.throws(
        () => jobTokenPermissions(refused),
        /GitHub refuses the job's permissions/,
        JSON.stringify(refused),
      );
    assert.deepEqual(jobTokenPermissions({ "id-token": "write", models: "read", contents: "none" }), {
      "id-token": "write",
      models: "read",
      contents: "none",
      metadata: "read",
    });
    assert.deepEqual(jobTokenPermissions({}), { metadata: "read" });
  });
});
