import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { excludeFromGit } from "../../action/src/git/exclude-from-git.ts";

describe("excludeFromGit: google-github-actions/auth's credentials file stays out of the stage's commits", () => {
  let dir: string;
  const git = (...args: string[]): string => execFileSync("git", ["-C", dir, ...args], { encoding: "utf8" });
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "loom-exclude-"));
    git("init", "-q");
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("a file in the workspace: `git add --all` leaves it, other new files are added", async () => {
    const creds = path.join(dir, "gha-creds-0123abcd.json");
    await writeFile(creds, "{}");
    await writeFile(path.join(dir, "work.txt"), "x");
    assert.equal(await excludeFromGit(dir, creds), true);
    assert.equal(await excludeFromGit(dir, creds), false, "once");
    git("add", "--all", "--", ".");
    assert.deepEqual(git("diff", "--cached", "--name-only").trim().split("\n"), ["work.txt"]);
    assert.match(
      await readFile(path.join(dir, ".git/info/exclude"), "utf8"),
      /^\/gha-creds-0123abcd\.json$/m,
    );
  });

  it("a file outside the workspace: nothing to do", async () => {
    assert.equal(await excludeFromGit(dir, path.join(tmpdir(), "gha-creds-elsewhere.json")), false);
  });
});
