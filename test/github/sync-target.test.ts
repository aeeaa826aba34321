import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { executeEffect } from "../../app/github/execute-effect.ts";
import type { Effect } from "../../src/orchestrator/effects.ts";
import { createClient } from "../emulator/emulator-fixture.ts";
import { startEmulator, type Emulator } from "../emulator/start-emulator.ts";
import { makeContext } from "./make-context.ts";
import { makeDiamond } from "../status/make-plan-state.ts";

const TARGET = "loom/pr-1/result/PLAN-demo";

/**
 * `syncTarget` against the emulator, whose forks are repositories of their own: the fork's head
 * reaches the base repository only as `refs/pull/<n>/head`, and the App's token cannot touch the fork.
 */
describe("bringing a fork's approved head into loom's result branch", () => {
  let emulator: Emulator;
  let ctx: ReturnType<typeof makeContext>;
  let baseMain: string;
  const sync = (sha: string): Promise<unknown[]> =>
    executeEffect(ctx, { type: "syncTarget", key: `k:${sha}`, branch: TARGET, sha } satisfies Effect);
  const forkMain = async () => (await emulator.repo("mallory/widgets").git.readBranch("main"))!;

  before(async () => {
    emulator = await startEmulator({ webhookUrl: null });
    baseMain = (await emulator.repo().git.readBranch("main"))!;
    await emulator.as("mallory").openPullRequest({
      head: "main",
      headRepo: "mallory/widgets",
      files: { "doc/plans/PLAN-demo.md": "# Plan: demo\n" },
    });
    ctx = makeContext(makeDiamond(), { octokit: createClient(emulator), owner: "acme", repo: "widgets" });
  });
  after(async () => {
    await emulator.close();
  });

  it("creates the result branch at the approved head, leaving main and the fork alone", async () => {
    const head = await forkMain();
    const events = await sync(head);
    assert.deepEqual(
      events.map((e) => [(e as { type: string }).type, (e as { outcome: string }).outcome]),
      [["target.synced", "synced"]],
    );
    assert.equal(await emulator.repo().git.readBranch(TARGET), head);
    assert.equal(await emulator.repo().git.readBranch("main"), baseMain);
    assert.equal(await forkMain(), head);
  });

  it("merges a newer approved head into the result branch, keeping the stage work there", async () => {
    await emulator.as("loom").push(TARGET, { "a.txt": "stage a\n" });
    const newer = await emulator.as("mallory", "mallory/widgets").push("main", { "more.txt": "more\n" });
    const events = await sync(newer);
    assert.equal((events[0] as { outcome: string }).outcome, "synced");
    const tip = (await emulator.repo().git.readBranch(TARGET))!;
    assert.ok(await emulator.repo().git.isAncestor(newer, tip));
    assert.equal((await emulator.repo().git.readBlob(tip, "a.txt"))?.toString(), "stage a\n");
    assert.equal((await sync(newer)).length, 1, "a head already there is synced again without a merge");
    assert.equal(await emulator.repo().git.readBranch(TARGET), tip);
    assert.equal(await emulator.repo().git.readBranch("main"), baseMain);
  });

  it("reports a head that conflicts with the stage work, changing nothing", async () => {
    await emulator.as("loom").push(TARGET, { "x.txt": "loom's\n" });
    const before = await emulator.repo().git.readBranch(TARGET);
    const clash = await emulator.as("mallory", "mallory/widgets").push("main", { "x.txt": "mallory's\n" });
    const [event] = await sync(clash);
    assert.equal((event as { outcome: string }).outcome, "conflict");
    assert.equal(await emulator.repo().git.readBranch(TARGET), before);
    emulator.assertNoViolations();
  });
});
