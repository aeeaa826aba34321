import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { wasMergedBefore } from "../../action/src/git/was-merged-before.ts";
import { git } from "../publish/git-fixture.ts";

const BRANCH = "loom/pr-3/PLAN-x/a";

/** An empty commit with `message` (loom's merge messages name the stage branch). */
function commitMessage(repo: string, message: string): void {
  git(repo, "commit", "-q", "--allow-empty", "-m", message);
}

test("a head holding loom's merge of the stage branch says so; another stage's merge or a look-alike subject does not", async (t) => {
  const repo = mkdtempSync(path.join(tmpdir(), "loom-merged-before-"));
  t.after(() => rmSync(repo, { recursive: true, force: true }));
  git(repo, "init", "-q", "-b", "main");
  writeFileSync(path.join(repo, "a.txt"), "a\n");
  git(repo, "add", "-A");
  git(repo, "commit", "-q", "-m", "seed");
  assert.equal(await wasMergedBefore(repo, BRANCH), false, "nothing merged yet");
  git(
    repo,
    "commit",
    "-q",
    "--allow-empty",
    "-m",
    `loom: merge stage b (B) of PLAN-x\n\nStage branch loom/pr-3/PLAN-x/b at ${"b".repeat(40)} (checked)`,
  );
  git(
    repo,
    "commit",
    "-q",
    "--allow-empty",
    "-m",
    `Stage branch ${BRANCH}-two at ${"c".repeat(40)} (checked)`,
  );
  assert.equal(await wasMergedBefore(repo, BRANCH), false, "b's merge and a longer branch name are not a's");
  commitMessage(
    repo,
    `loom: merge stage a (A) of PLAN-x\n\nStage branch ${BRANCH} at ${"a".repeat(40)} (checked)`,
  );
  assert.equal(await wasMergedBefore(repo, BRANCH), true);
  const notARepository = mkdtempSync(path.join(tmpdir(), "loom-not-a-repo-"));
  t.after(() => rmSync(notARepository, { recursive: true, force: true }));
  assert.equal(await wasMergedBefore(notARepository, BRANCH), false, "git cannot tell: false");
});
