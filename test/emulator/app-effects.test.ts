import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { executeEffect } from "../../app/github/execute-effect.ts";
import { makeContext } from "../github/make-context.ts";
import { makeDiamond } from "../status/make-plan-state.ts";
import { createClient } from "./emulator-fixture.ts";
import { startEmulator, type Emulator } from "./start-emulator.ts";

const caller = await readFile(new URL("../../examples/loom.yml", import.meta.url), "utf8");

/** loom's own GitHub effects (app/github) executed against the emulator instead of mocks. */
describe("loom's effects executor against the emulator", () => {
  let emulator: Emulator;
  let ctx: ReturnType<typeof makeContext>;
  before(async () => {
    emulator = await startEmulator({
      repos: [
        { owner: "octo", name: "repo", files: { "README.md": "r\n", ".github/workflows/loom.yml": caller } },
      ],
    });
    await emulator
      .as("alice")
      .openPullRequest({ head: "feature/demo", files: { "doc/plans/PLAN-demo.md": "# Plan: demo\n" } });
    const state = makeDiamond();
    ctx = makeContext(
      { ...state, pr: { ...state.pr, headSha: (await emulator.repo().git.readBranch("feature/demo"))! } },
      {
        octokit: createClient(emulator),
        // loom's bot dispatches (the emulator's default token acts as it): only its runs are loom's.
        config: { workflowFile: "loom.yml", defaultBranch: "main", botLogin: emulator.botLogin },
      },
    );
  });
  after(async () => {
    await emulator.close();
  });

  it("creates the stage branch, dispatches its run once per key, and merges it back", async () => {
    const branch = "loom/pr-7/PLAN-demo/a";
    const created = await executeEffect(ctx, {
      type: "createBranch",
      key: "k",
      stageId: "a",
      branch,
      from: "feature/demo",
    });
    assert.equal(
      await emulator.repo().git.readBranch(branch),
      await emulator.repo().git.readBranch("feature/demo"),
    );
    assert.ok(Array.isArray(created));

    const dispatch = {
      type: "dispatchRun",
      key: "PLAN-demo:a:1",
      stageId: "a",
      attempt: 1,
      kind: "stage",
      branch,
      previousRunId: null,
    } as const;
    const first = await executeEffect(ctx, dispatch);
    const again = await executeEffect(ctx, dispatch);
    assert.equal(emulator.state.runs.length, 1, "a second dispatch with the same key finds the first run");
    const runId = emulator.state.runs[0]!.id;
    assert.deepEqual([first[0]?.type, again[0]?.type], ["run.dispatched", "run.dispatched"]);
    assert.deepEqual(
      [(first[0] as { runId: number }).runId, (again[0] as { runId: number }).runId],
      [runId, runId],
    );
    assert.equal(emulator.state.runs[0]?.inputs["branch"], branch);

    await emulator.as("loom-runner").push(branch, { "a.txt": "stage a\n" });
    const merged = await executeEffect(ctx, {
      type: "mergeBranch",
      key: "m",
      stageId: "a",
      head: branch,
      base: "feature/demo",
      message: "loom: merge a",
    });
    assert.equal((merged[0] as { outcome: string }).outcome, "merged");
    assert.equal((await emulator.repo().git.readBlob("feature/demo", "a.txt"))?.toString(), "stage a\n");
    emulator.assertNoViolations();
  });
});
