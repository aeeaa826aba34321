import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { commitLeftovers } from "../../action/src/git/commit-leftovers.ts";
import { createBundle } from "../../action/src/git/create-bundle.ts";
import { listCommitsSince, readHead } from "../../action/src/git/list-commits.ts";
import { git } from "./run-stage-fixture.ts";

async function repo(t: {
  after: (fn: () => Promise<void>) => void;
}): Promise<{ dir: string; start: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), "loom-git-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  git(dir, "init", "-q", "-b", "loom/PLAN-x/api");
  await writeFile(path.join(dir, "README.md"), "hi\n");
  await writeFile(path.join(dir, ".gitignore"), "node_modules/\n");
  git(dir, "add", ".");
  git(dir, "commit", "-q", "-m", "base");
  return { dir, start: git(dir, "rev-parse", "HEAD") };
}

test("leftovers are committed as loom-runner, gitignored files stay out", async (t) => {
  const { dir, start } = await repo(t);
  await writeFile(path.join(dir, "new.txt"), "new\n");
  await writeFile(path.join(dir, "README.md"), "changed\n");
  await mkdir(path.join(dir, "node_modules"));
  await writeFile(path.join(dir, "node_modules", "dep.js"), "");
  const result = await commitLeftovers(dir, "loom: commit work left uncommitted by the session");
  assert.equal(result.committed, true);
  assert.ok(result.committed);
  assert.deepEqual(result.files.sort(), ["README.md", "new.txt"]);
  assert.equal(
    git(dir, "log", "-1", "--format=%an <%ae>|%cn"),
    "loom-runner <loom-runner@users.noreply.github.com>|loom-runner",
  );
  assert.equal(git(dir, "status", "--porcelain", "--ignored").includes("node_modules"), true);
  const commits = await listCommitsSince(dir, start);
  assert.deepEqual(
    commits.map((c) => c.subject),
    ["loom: commit work left uncommitted by the session"],
  );
});

test("a clean tree is left alone", async (t) => {
  const { dir } = await repo(t);
  assert.deepEqual(await commitLeftovers(dir, "x"), { committed: false, reason: "clean" });
});

test("the repository's own git hooks do not run on the runner's commit", async (t) => {
  const { dir } = await repo(t);
  const marker = path.join(dir, "..", `${path.basename(dir)}-hook-ran`);
  await writeFile(path.join(dir, "hook.sh"), `#!/bin/sh\ntouch ${marker}\nexit 1\n`, { mode: 0o755 });
  git(dir, "config", "core.hooksPath", ".hooks");
  execFileSync("mkdir", ["-p", path.join(dir, ".hooks")]);
  execFileSync("cp", [path.join(dir, "hook.sh"), path.join(dir, ".hooks", "pre-commit")]);
  const result = await commitLeftovers(dir, "x");
  assert.equal(result.committed, true);
  const { existsSync } = await import("node:fs");
  assert.equal(existsSync(marker), false);
});

test("commits since the start are listed oldest first and bundled under the stage branch", async (t) => {
  const { dir, start } = await repo(t);
  await writeFile(path.join(dir, "a.txt"), "a\n");
  git(dir, "add", "a.txt");
  git(dir, "commit", "-q", "-m", "Add a");
  await writeFile(path.join(dir, "b.txt"), "b\n");
  await commitLeftovers(dir, "runner leftovers");
  const head = await readHead(dir);
  assert.deepEqual(
    (await listCommitsSince(dir, start)).map((c) => c.subject),
    ["Add a", "runner leftovers"],
  );

  const file = path.join(dir, "..", `${path.basename(dir)}.bundle`);
  t.after(() => rm(file, { force: true }));
  const bundle = await createBundle(dir, { branch: "loom/PLAN-x/api", startSha: start, file });
  assert.deepEqual(bundle, { created: true, file, ref: "refs/heads/loom/PLAN-x/api", head });

  // A clone that has the start commit can fetch the stage branch from the bundle.
  const clone = await mkdtemp(path.join(tmpdir(), "loom-clone-"));
  t.after(() => rm(clone, { recursive: true, force: true }));
  git(clone, "init", "-q");
  git(clone, "fetch", "-q", dir, start);
  git(clone, "bundle", "verify", "-q", file);
  git(clone, "fetch", "-q", file, "refs/heads/loom/PLAN-x/api:refs/heads/stage");
  assert.equal(git(clone, "rev-parse", "stage"), head);
  assert.equal(git(clone, "show", "stage:b.txt"), "b");
  assert.equal(git(clone, "ls-remote", file).split("\n").length, 1, "only the stage branch is in the bundle");
});

test("a detached checkout is bundled under the stage branch name too; no commits, no bundle", async (t) => {
  const { dir, start } = await repo(t);
  const empty = path.join(dir, "..", `${path.basename(dir)}-empty.bundle`);
  assert.deepEqual(await createBundle(dir, { branch: "loom/PLAN-x/api", startSha: start, file: empty }), {
    created: false,
    reason: "no-commits",
  });
  git(dir, "checkout", "-q", "--detach");
  await writeFile(path.join(dir, "c.txt"), "c\n");
  await commitLeftovers(dir, "c");
  const file = path.join(dir, "..", `${path.basename(dir)}-d.bundle`);
  t.after(() => rm(file, { force: true }));
  const bundle = await createBundle(dir, { branch: "loom/PLAN-x/other", startSha: start, file });
  assert.equal(bundle.created, true);
  assert.match(git(dir, "bundle", "list-heads", file), /refs\/heads\/loom\/PLAN-x\/other$/);
});

async function conflictedMerge(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const { dir } = await repo(t);
  await writeFile(path.join(dir, "shared.txt"), "base\n");
  git(dir, "add", "shared.txt");
  git(dir, "commit", "-q", "-m", "shared");
  git(dir, "checkout", "-q", "-b", "plan");
  await writeFile(path.join(dir, "shared.txt"), "plan side\n");
  git(dir, "commit", "-q", "-am", "plan edit");
  git(dir, "checkout", "-q", "loom/PLAN-x/api");
  await writeFile(path.join(dir, "shared.txt"), "stage side\n");
  git(dir, "commit", "-q", "-am", "stage edit");
  assert.throws(() => git(dir, "merge", "-q", "plan"));
  return dir;
}

test("a merge left with conflicts is not committed; one resolved but not committed is", async (t) => {
  const dir = await conflictedMerge(t);
  assert.deepEqual(await commitLeftovers(dir, "x"), { committed: false, reason: "merge-in-progress" });
  await writeFile(
    path.join(dir, "shared.txt"),
    "<<<<<<< HEAD\nstage side\n=======\nplan side\n>>>>>>> plan\n",
  );
  git(dir, "add", "shared.txt");
  assert.deepEqual(await commitLeftovers(dir, "x"), { committed: false, reason: "merge-in-progress" });
  await writeFile(path.join(dir, "shared.txt"), "both sides\n");
  const result = await commitLeftovers(dir, "loom: finish the merge");
  assert.equal(result.committed, true);
  assert.equal(git(dir, "log", "-1", "--format=%P").split(" ").length, 2, "a real merge commit");
});

test("a HEAD moved back behind the start gives no bundle instead of failing", async (t) => {
  const { dir } = await repo(t);
  await writeFile(path.join(dir, "a.txt"), "a\n");
  git(dir, "add", "a.txt");
  git(dir, "commit", "-q", "-m", "a");
  const start = git(dir, "rev-parse", "HEAD");
  git(dir, "reset", "-q", "--hard", "HEAD~1");
  const file = path.join(dir, "..", `${path.basename(dir)}-back.bundle`);
  assert.deepEqual(await createBundle(dir, { branch: "loom/PLAN-x/api", startSha: start, file }), {
    created: false,
    reason: "no-commits",
  });
});
