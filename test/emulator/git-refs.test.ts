import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { runGitOk } from "./run-git.ts";
import { startWithClient, statusOf, type Client } from "./emulator-fixture.ts";
import type { Emulator } from "./start-emulator.ts";

const repo = { owner: "acme", repo: "widgets" };

describe("git refs and merges on the emulator (real bare repository)", () => {
  let emulator: Emulator;
  let octokit: Client;
  before(async () => {
    ({ emulator, octokit } = await startWithClient());
  });
  after(async () => {
    await emulator.close();
  });

  it("reads the default branch and a branch head like GitHub", async () => {
    const { data } = await octokit.rest.repos.get(repo);
    assert.equal(data.default_branch, "main");
    const { data: ref } = await octokit.rest.git.getRef({ ...repo, ref: "heads/main" });
    assert.equal(ref.object.sha, await emulator.repo().git.readBranch("main"));
    assert.equal((await statusOf(octokit.rest.git.getRef({ ...repo, ref: "heads/nope" })))?.status, 404);
  });

  it("creates a ref once and answers 422 'Reference already exists' the second time", async () => {
    const main = (await emulator.repo().git.readBranch("main"))!;
    const { status } = await octokit.rest.git.createRef({ ...repo, ref: "refs/heads/loom/p/a", sha: main });
    assert.equal(status, 201);
    const again = await statusOf(
      octokit.rest.git.createRef({ ...repo, ref: "refs/heads/loom/p/a", sha: main }),
    );
    assert.deepEqual(again, { status: 422, message: "Reference already exists" });
    assert.equal(await emulator.repo().git.readBranch("loom/p/a"), main);
  });

  it("fast-forwards a branch, refuses a non-fast-forward unless forced, and deletes", async () => {
    const git = emulator.repo().git;
    const main = (await git.readBranch("main"))!;
    const ahead = await emulator.as("alice").push("ff", { "a.txt": "1\n" });
    const side = await git.commitFiles({ parent: main, files: { "b.txt": "2\n" }, message: "side" });
    await octokit.rest.git.createRef({ ...repo, ref: "refs/heads/ff-target", sha: main });
    const ff = await octokit.rest.git.updateRef({
      ...repo,
      ref: "heads/ff-target",
      sha: ahead,
      force: false,
    });
    assert.equal(ff.data.object.sha, ahead);
    const refused = await statusOf(
      octokit.rest.git.updateRef({ ...repo, ref: "heads/ff-target", sha: side, force: false }),
    );
    assert.deepEqual(refused, { status: 422, message: "Update is not a fast forward" });
    await octokit.rest.git.updateRef({ ...repo, ref: "heads/ff-target", sha: side, force: true });
    assert.equal(await git.readBranch("ff-target"), side);
    await octokit.rest.git.deleteRef({ ...repo, ref: "heads/ff-target" });
    assert.equal(await git.readBranch("ff-target"), null);
    const missing = await statusOf(
      octokit.rest.git.updateRef({ ...repo, ref: "heads/ff-target", sha: side }),
    );
    assert.deepEqual(missing, { status: 422, message: "Reference does not exist" });
  });

  it("merges cleanly with a real merge commit: 201, and the base then holds both sides", async () => {
    const alice = emulator.as("alice");
    await alice.push("base-1", { "shared.txt": "one\ntwo\nthree\n" });
    const git = emulator.repo().git;
    const start = (await git.readBranch("base-1"))!;
    await octokit.rest.git.createRef({ ...repo, ref: "refs/heads/stage-1", sha: start });
    await alice.push("base-1", { "left.txt": "left\n" });
    await alice.push("stage-1", { "right.txt": "right\n" });
    const merged = await octokit.rest.repos.merge({
      ...repo,
      base: "base-1",
      head: "stage-1",
      commit_message: "loom: merge stage-1",
    });
    assert.equal(merged.status, 201);
    assert.equal(merged.data.parents.length, 2);
    assert.equal(await git.readBranch("base-1"), merged.data.sha);
    // Like GitHub's answer (the `commit` schema): the files the merge changed against its first
    // parent, the base's head it merged onto: the stage's side only.
    assert.deepEqual(
      merged.data.files?.map((f) => [f.filename, f.status]),
      [["right.txt", "added"]],
    );
    const files = await runGitOk(git.dir, ["ls-tree", "--name-only", "base-1"]);
    assert.deepEqual(files.split("\n").filter(Boolean).sort(), [
      "README.md",
      "left.txt",
      "right.txt",
      "shared.txt",
    ]);
    assert.equal(
      (await runGitOk(git.dir, ["log", "-1", "--format=%s", "base-1"])).trim(),
      "loom: merge stage-1",
    );
    const again = await octokit.rest.repos.merge({ ...repo, base: "base-1", head: "stage-1" });
    assert.equal(again.status, 204);
  });

  it("answers 409 on a real conflict and leaves the base where it was", async () => {
    const alice = emulator.as("alice");
    await alice.push("base-2", { "shared.txt": "one\ntwo\nthree\n" });
    const git = emulator.repo().git;
    const start = (await git.readBranch("base-2"))!;
    await octokit.rest.git.createRef({ ...repo, ref: "refs/heads/stage-2", sha: start });
    const baseHead = await alice.push("base-2", { "shared.txt": "one\nTWO from base\nthree\n" });
    await alice.push("stage-2", { "shared.txt": "one\nTWO from stage\nthree\n" });
    const conflict = await statusOf(octokit.rest.repos.merge({ ...repo, base: "base-2", head: "stage-2" }));
    assert.deepEqual(conflict, { status: 409, message: "Merge conflict" });
    assert.equal(await git.readBranch("base-2"), baseHead);
    const missing = await statusOf(
      octokit.rest.repos.merge({ ...repo, base: "base-2", head: "no-such-branch" }),
    );
    assert.equal(missing?.status, 404);
  });

  it("compares commits the way loom checks a merge landed", async () => {
    const git = emulator.repo().git;
    const head = (await git.readBranch("base-1"))!;
    const parent = (await git.readCommit(head)).parents[0]!;
    const { data } = await octokit.rest.repos.compareCommitsWithBasehead({
      ...repo,
      basehead: `${parent}...${head}`,
      per_page: 1,
    });
    assert.equal(data.status, "ahead");
    assert.equal(emulator.violations.length, 0, JSON.stringify(emulator.violations));
  });
});
