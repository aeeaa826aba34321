import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { runGitOk } from "./run-git.ts";
import { startEmulator, type Emulator } from "./start-emulator.ts";

describe("git over HTTP on the emulator (clone, push)", () => {
  let emulator: Emulator;
  let work: string;
  before(async () => {
    emulator = await startEmulator({ permissions: { "loom-runner": "write" } });
    work = await mkdtemp(path.join(tmpdir(), "emulator-clone-"));
    await emulator.as("alice").openPullRequest({ head: "feature", files: { "a.txt": "a\n" } });
  });
  after(async () => {
    await emulator.close();
    await rm(work, { recursive: true, force: true });
  });

  it("clones with a token, and a push moves the branch and fires synchronize as the token's user", async () => {
    const token = emulator.tokenFor("loom-runner");
    const url = new URL(emulator.cloneUrl());
    url.username = "x-access-token";
    url.password = token;
    const clone = path.join(work, "clone");
    await runGitOk(work, ["clone", "--quiet", "--branch", "feature", url.toString(), clone]);
    await writeFile(path.join(clone, "b.txt"), "b\n");
    const identity = ["-c", "user.name=runner", "-c", "user.email=runner@example.invalid"];
    await runGitOk(clone, ["add", "b.txt"]);
    await runGitOk(clone, [...identity, "commit", "--quiet", "-m", "stage work"]);
    const local = (await runGitOk(clone, ["rev-parse", "HEAD"])).trim();
    const before = await emulator.repo().git.readBranch("feature");
    await runGitOk(clone, ["push", "--quiet", "origin", "feature", "HEAD:refs/heads/loom/p/a"]);
    assert.equal(await emulator.repo().git.readBranch("feature"), local);
    assert.equal(await emulator.repo().git.readBranch("loom/p/a"), local);
    await emulator.settle();
    const sync = emulator.deliveries.find((d) => d.action === "synchronize");
    assert.deepEqual([sync?.payload["before"], sync?.payload["after"]], [before, local]);
    assert.equal((sync?.payload["sender"] as { login: string }).login, "loom-runner");
    emulator.assertNoViolations();
  });
});
