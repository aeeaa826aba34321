import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createClient, statusOf, type Client } from "./emulator-fixture.ts";
import { startEmulator, type Emulator } from "./start-emulator.ts";

const repo = { owner: "acme", repo: "widgets" };

describe("pull requests, contents, check runs, comments and permissions", () => {
  let emulator: Emulator;
  let octokit: Client;
  before(async () => {
    emulator = await startEmulator({ permissions: { alice: "maintain", bob: "triage" } });
    octokit = createClient(emulator);
    const files: Record<string, string> = { "doc/plans/PLAN-x.md": "# Plan: x\n" };
    for (let i = 0; i < 35; i++)
      files[`src/file-${String(i).padStart(2, "0")}.ts`] = `export const n = ${i};\n`;
    await emulator.as("alice").openPullRequest({ head: "feature/plan", title: "Add plan x", files });
  });
  after(async () => {
    await emulator.close();
  });

  it("serves the pull request with its head on the branch tip, following later pushes", async () => {
    const { data } = await octokit.rest.pulls.get({ ...repo, pull_number: 1 });
    assert.equal(data.head.ref, "feature/plan");
    assert.equal(data.base.ref, "main");
    assert.equal(data.user?.login, "alice");
    const pushed = await emulator.as("alice").push("feature/plan", { "README.md": "changed\n" });
    assert.equal((await octokit.rest.pulls.get({ ...repo, pull_number: 1 })).data.head.sha, pushed);
    assert.equal((await statusOf(octokit.rest.pulls.get({ ...repo, pull_number: 9 })))?.status, 404);
  });

  it("lists the pull request's files over several pages", async () => {
    const files = await octokit.paginate(octokit.rest.pulls.listFiles, {
      ...repo,
      pull_number: 1,
      per_page: 10,
    });
    assert.equal(files.length, 37);
    assert.ok(
      files.some((f) => f.filename === "doc/plans/PLAN-x.md" && f.status === "added" && f.additions === 1),
    );
    assert.ok(files.some((f) => f.filename === "README.md" && f.status === "modified"));
    assert.equal(emulator.requests.filter((r) => r.operationId === "pulls/list-files").length, 4);
  });

  it("serves file contents at a ref as base64 and as raw, and 404 for a missing file", async () => {
    const { data } = await octokit.rest.repos.getContent({
      ...repo,
      path: "doc/plans/PLAN-x.md",
      ref: "feature/plan",
    });
    assert.ok(!Array.isArray(data) && data.type === "file");
    assert.equal(Buffer.from(data.content, "base64").toString("utf8"), "# Plan: x\n");
    const raw = await octokit.rest.repos.getContent({
      ...repo,
      path: "doc/plans/PLAN-x.md",
      ref: "feature/plan",
      mediaType: { format: "raw" },
    });
    assert.equal(raw.data, "# Plan: x\n");
    assert.equal(
      (await statusOf(octokit.rest.repos.getContent({ ...repo, path: "doc/plans/PLAN-x.md", ref: "main" })))
        ?.status,
      404,
    );
  });

  it("answers 304 to a conditional request with the ETag it gave", async () => {
    const first = await octokit.rest.repos.get(repo);
    const again = await statusOf(
      octokit.rest.repos.get({ ...repo, headers: { "if-none-match": first.headers.etag! } }),
    );
    assert.equal(again?.status, 304);
  });

  it("lists check runs by ref and name (the latest per name), keeping external_id and buttons", async () => {
    const head = (await octokit.rest.pulls.get({ ...repo, pull_number: 1 })).data.head.sha;
    const actions = [{ label: "Retry", description: "Run again", identifier: "retry" }];
    const first = await octokit.rest.checks.create({
      ...repo,
      head_sha: head,
      name: "loom: a",
      external_id: "k:a",
      status: "in_progress",
    });
    await octokit.rest.checks.create({ ...repo, head_sha: head, name: "loom: b", external_id: "k:b" });
    await octokit.rest.checks.update({
      ...repo,
      check_run_id: first.data.id,
      conclusion: "failure",
      actions,
      output: { title: "failed", summary: "acceptance failed" },
    });
    const { data } = await octokit.rest.checks.listForRef({
      ...repo,
      ref: "feature/plan",
      check_name: "loom: a",
    });
    assert.equal(data.total_count, 1);
    const run = data.check_runs[0]!;
    assert.deepEqual(
      [run.status, run.conclusion, run.external_id, run.output.summary],
      ["completed", "failure", "k:a", "acceptance failed"],
    );
    assert.deepEqual(emulator.state.checkRuns.find((r) => r.id === run.id)?.actions, actions);
    assert.deepEqual(
      run.pull_requests.map((p) => p.number),
      [1],
    );
  });

  it("creates, lists and updates comments, and records reactions", async () => {
    const { data: created } = await octokit.rest.issues.createComment({
      ...repo,
      issue_number: 1,
      body: "<!-- loom:status -->\nstatus",
    });
    assert.equal(created.user?.login, "loom[bot]");
    await octokit.rest.issues.updateComment({
      ...repo,
      comment_id: created.id,
      body: "<!-- loom:status -->\nnew status",
    });
    const { data: listed } = await octokit.rest.issues.listComments({ ...repo, issue_number: 1 });
    assert.deepEqual(
      listed.map((c) => c.body),
      ["<!-- loom:status -->\nnew status"],
    );
    const reaction = await octokit.rest.reactions.createForIssueComment({
      ...repo,
      comment_id: created.id,
      content: "eyes",
    });
    assert.equal(reaction.status, 201);
    assert.equal(
      (
        await octokit.rest.reactions.createForIssueComment({
          ...repo,
          comment_id: created.id,
          content: "eyes",
        })
      ).status,
      200,
    );
    assert.equal(emulator.state.reactions.length, 1);
  });

  it("adds and removes labels through the API", async () => {
    const { data } = await octokit.rest.issues.addLabels({
      ...repo,
      issue_number: 1,
      labels: ["loom:skip:a"],
    });
    assert.deepEqual(
      data.map((l) => l.name),
      ["loom:skip:a"],
    );
    await octokit.rest.issues.removeLabel({ ...repo, issue_number: 1, name: "loom:skip:a" });
    assert.deepEqual(emulator.state.pulls[0]?.labels, []);
    assert.equal(
      (await statusOf(octokit.rest.issues.removeLabel({ ...repo, issue_number: 1, name: "loom:skip:a" })))
        ?.status,
      404,
    );
  });

  it("answers collaborator permissions per user, with the legacy permission and the role", async () => {
    const read = async (username: string) =>
      (await octokit.rest.repos.getCollaboratorPermissionLevel({ ...repo, username })).data;
    assert.deepEqual(
      [(await read("alice")).permission, (await read("alice")).role_name],
      ["write", "maintain"],
    );
    assert.deepEqual([(await read("bob")).permission, (await read("bob")).role_name], ["read", "triage"]);
    emulator.setPermission("carol", "admin");
    assert.equal((await read("carol")).permission, "admin");
    assert.equal((await read("dave")).permission, "read");
    emulator.assertNoViolations();
  });
});
