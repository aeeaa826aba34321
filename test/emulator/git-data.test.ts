import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startWithClient, statusOf, type Client } from "./emulator-fixture.ts";
import type { Emulator } from "./start-emulator.ts";

const repo = { owner: "acme", repo: "widgets" };

describe("the Git Data API on the emulator: a file renamed in one commit, as loom renames plans; annotated tags, as loom records a /loom continue", () => {
  let emulator: Emulator;
  let octokit: Client;
  before(async () => {
    ({ emulator, octokit } = await startWithClient());
  });
  after(async () => {
    await emulator.close();
  });

  it("reads a commit, writes a tree on its tree with a file moved, commits it and fast-forwards the branch", async () => {
    const git = emulator.repo().git;
    const main = (await git.readBranch("main"))!;
    const head = await git.commitFiles({
      parent: main,
      files: { "doc/plans/PLAN-x.md": "# plan\n" },
      message: "plan",
    });
    await octokit.rest.git.createRef({ ...repo, ref: "refs/heads/feature/x", sha: head });
    const blob = (await git.blobSha(head, "doc/plans/PLAN-x.md"))!;

    const { data: commit } = await octokit.rest.git.getCommit({ ...repo, commit_sha: head });
    assert.equal(commit.sha, head);
    const { data: tree } = await octokit.rest.git.createTree({
      ...repo,
      base_tree: commit.tree.sha,
      tree: [
        { path: "doc/plans/IN_PROGRESS-PLAN-x.md", mode: "100644", type: "blob", sha: blob },
        { path: "doc/plans/PLAN-x.md", mode: "100644", type: "blob", sha: null },
      ],
    });
    const { data: created } = await octokit.rest.git.createCommit({
      ...repo,
      message: "rename",
      tree: tree.sha,
      parents: [head],
    });
    assert.deepEqual(
      created.parents.map((p) => p.sha),
      [head],
    );
    await octokit.rest.git.updateRef({ ...repo, ref: "heads/feature/x", sha: created.sha, force: false });
    assert.equal(await git.readBranch("feature/x"), created.sha);
    assert.deepEqual(
      (await git.diffFiles(head, created.sha)).map((f) => [f.status, f.previousFilename, f.filename]),
      [["renamed", "doc/plans/PLAN-x.md", "doc/plans/IN_PROGRESS-PLAN-x.md"]],
    );
    emulator.assertNoViolations();
  });

  it("refuses a tree with a blob the repository does not have, and a commit on a missing tree", async () => {
    const main = (await emulator.repo().git.readBranch("main"))!;
    const { data: commit } = await octokit.rest.git.getCommit({ ...repo, commit_sha: main });
    const missing = "1".repeat(40);
    const tree = await statusOf(
      octokit.rest.git.createTree({
        ...repo,
        base_tree: commit.tree.sha,
        tree: [{ path: "x.txt", mode: "100644", type: "blob", sha: missing }],
      }),
    );
    assert.equal(tree?.status, 422);
    const made = await statusOf(
      octokit.rest.git.createCommit({ ...repo, message: "m", tree: missing, parents: [main] }),
    );
    assert.equal(made?.status, 422);
  });

  it("writes a tag object, points a custom ref at it (moved later with force), and reads both back unpeeled", async () => {
    const main = (await emulator.repo().git.readBranch("main"))!;
    const { data: tag } = await octokit.rest.git.createTag({
      ...repo,
      tag: "loom-continue-a",
      message: "first\n\n{}\n",
      object: main,
      type: "commit",
    });
    assert.equal(tag.object.sha, main);
    assert.equal(tag.message, "first\n\n{}\n");
    const ref = "loom/continue/loom/pr-1/PLAN-x/a";
    await octokit.rest.git.createRef({ ...repo, ref: `refs/${ref}`, sha: tag.sha });
    const { data: pointer } = await octokit.rest.git.getRef({ ...repo, ref });
    assert.deepEqual([pointer.object.type, pointer.object.sha], ["tag", tag.sha]);
    const { data: read } = await octokit.rest.git.getTag({ ...repo, tag_sha: tag.sha });
    assert.equal(read.message, "first\n\n{}\n");

    const { data: next } = await octokit.rest.git.createTag({
      ...repo,
      tag: "loom-continue-a",
      message: "second\n",
      object: main,
      type: "commit",
    });
    const again = await statusOf(octokit.rest.git.createRef({ ...repo, ref: `refs/${ref}`, sha: next.sha }));
    assert.equal(again?.status, 422, "Reference already exists");
    await octokit.rest.git.updateRef({ ...repo, ref, sha: next.sha, force: true });
    assert.equal((await octokit.rest.git.getRef({ ...repo, ref })).data.object.sha, next.sha);
    assert.equal(await emulator.repo().git.readBranch("main"), main, "no branch moved");
    emulator.assertNoViolations();
  });

  it("refuses a tag on an object the repository does not have, and answers 404 for a missing tag", async () => {
    const made = await statusOf(
      octokit.rest.git.createTag({ ...repo, tag: "x", message: "m", object: "1".repeat(40), type: "commit" }),
    );
    assert.equal(made?.status, 422);
    const missing = await statusOf(octokit.rest.git.getTag({ ...repo, tag_sha: "2".repeat(40) }));
    assert.equal(missing?.status, 404);
  });
});
