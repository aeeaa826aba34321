import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { readRanBefore } from "../../action/src/git/read-ran-before.ts";
import { git } from "../publish/git-fixture.ts";

const BRANCH = "loom/pr-3/PLAN-x/a";

/** An empty commit with `message` (loom's merge messages name the stage branch). */
function commitMessage(repo: string, message: string): void {
  git(repo, "commit", "-q", "--allow-empty", "-m", message);
}

function seedRepo(t: { after: (fn: () => void) => void }): string {
  const repo = mkdtempSync(path.join(tmpdir(), "loom-ran-before-"));
  t.after(() => rmSync(repo, { recursive: true, force: true }));
  git(repo, "init", "-q", "-b", "main");
  writeFileSync(path.join(repo, "a.txt"), "a\n");
  git(repo, "add", "-A");
  git(repo, "commit", "-q", "-m", "seed");
  return repo;
}

const mergeOf = (branch: string, sha: string) =>
  `loom: merge stage of PLAN-x\n\nStage branch ${branch} at ${sha} (checked)`;

test("a head holding loom's merge of the stage branch says so; another stage's merge or a look-alike subject does not", async (t) => {
  const repo = seedRepo(t);
  assert.equal(await readRanBefore(repo, BRANCH), null, "nothing merged yet");
  commitMessage(repo, mergeOf("loom/pr-3/PLAN-x/b", "b".repeat(40)));
  commitMessage(repo, `Stage branch ${BRANCH}-two at ${"c".repeat(40)} (checked)`);
  assert.equal(await readRanBefore(repo, BRANCH), null, "b's merge and a longer branch name are not a's");
  commitMessage(repo, mergeOf(BRANCH, "a".repeat(40)));
  const merge = git(repo, "rev-parse", "HEAD").trim();
  assert.deepEqual(await readRanBefore(repo, BRANCH), {
    merge,
    commits: [],
    moreCommits: 0,
    paths: [],
    morePaths: 0,
  });
  const notARepository = mkdtempSync(path.join(tmpdir(), "loom-not-a-repo-"));
  t.after(() => rmSync(notARepository, { recursive: true, force: true }));
  assert.equal(await readRanBefore(notARepository, BRANCH), null, "git cannot tell: null");
});

test("what landed after the newest merge of the stage's work: the commits (author, subject) and the paths they changed", async (t) => {
  const repo = seedRepo(t);
  commitMessage(repo, mergeOf(BRANCH, "1".repeat(40)));
  writeFileSync(path.join(repo, "a.txt"), "a, again\n");
  git(repo, "commit", "-q", "-am", "an older change, before the newest merge");
  commitMessage(repo, mergeOf(BRANCH, "2".repeat(40)));
  const merge = git(repo, "rev-parse", "HEAD").trim();
  mkdirSync(path.join(repo, "b"));
  writeFileSync(path.join(repo, "b", "fix with space.txt"), "fix\n");
  git(repo, "add", "-A");
  git(
    repo,
    "-c",
    "user.name=alice",
    "commit",
    "-q",
    "--author=alice <alice@example.com>",
    "-m",
    "A person's fix",
  );
  const fix = git(repo, "rev-parse", "--short", "HEAD").trim();
  const ran = await readRanBefore(repo, BRANCH);
  assert.equal(ran?.merge, merge, "the newest merge, not the first");
  assert.deepEqual(ran?.commits, [`${fix} alice: A person's fix`]);
  assert.deepEqual(ran?.paths, ["b/fix with space.txt"]);
  assert.deepEqual([ran?.moreCommits, ran?.morePaths], [0, 0]);
});

test("at most 30 commits and 30 paths are listed; the rest are counted", async (t) => {
  const repo = seedRepo(t);
  commitMessage(repo, mergeOf(BRANCH, "3".repeat(40)));
  for (let i = 0; i < 32; i++) {
    writeFileSync(path.join(repo, `f${String(i).padStart(2, "0")}.txt`), `${i}\n`);
    git(repo, "add", "-A");
    git(repo, "commit", "-q", "-m", `change ${i}`);
  }
  const ran = await readRanBefore(repo, BRANCH);
  assert.equal(ran?.commits.length, 30);
  assert.match(ran?.commits[0] ?? "", / t: change 31$/, "newest first");
  assert.equal(ran?.moreCommits, 2);
  assert.deepEqual(ran?.paths.slice(0, 2), ["f00.txt", "f01.txt"]);
  assert.equal(ran?.paths.length, 30);
  assert.equal(ran?.morePaths, 2);
});
